from common.tokens import estimate_tokens


def test_words_count_one_token_per_seven_letters() -> None:
    assert estimate_tokens("hello world") == 2
    assert estimate_tokens("seventy") == 1  # 7 letters
    assert estimate_tokens("internationalization") == 3  # 20 letters


def test_numbers_symbols_and_non_ascii_letters_count_apart() -> None:
    assert estimate_tokens("12345") == 2  # digits by threes
    assert estimate_tokens("a-b") == 3
    assert estimate_tokens("héllo") == 3  # h, é, llo
    assert estimate_tokens("🎉🎉") == 2
    assert estimate_tokens("<@123456789012345678>") == 9  # <, @, six groups of three digits, >


def test_empty_and_blank_text_count_nothing() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens(" \n\t ") == 0
