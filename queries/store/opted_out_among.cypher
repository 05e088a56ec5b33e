// Which of these consent keys (keyed hashes of user ids) are opted out: read in the writing transaction.
UNWIND $keys AS key
MATCH (o:OptOut {key: key})
RETURN o.key AS key
