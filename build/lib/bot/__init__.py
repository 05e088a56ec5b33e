"""The Discord bot: listens to conversations, answers with memory, and takes memory commands."""
