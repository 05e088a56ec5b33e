MATCH (o:OptOut)
RETURN o.key AS key
