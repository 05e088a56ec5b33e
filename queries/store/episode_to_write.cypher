// An episode about to be written: its status, and which of the members it names opted out (consent keys
// `$keys`, as store/opted_out_among.cypher), in one round trip.
MATCH (e:Episode {key: $key})
CALL (e) {
  UNWIND $keys AS k
  MATCH (o:OptOut {key: k})
  RETURN collect(o.key) AS opted_out
}
RETURN e.status AS status, opted_out
