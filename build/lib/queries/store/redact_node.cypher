// Forget-me: replace text properties of one node that name the forgotten user.
MATCH (n)
WHERE elementId(n) = $element_id
SET n += $props
