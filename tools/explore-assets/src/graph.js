// The graph library `grapevine explore` ships: cytoscape.js with the fCoSE layout registered,
// exposed as the global `cytoscape` for grapevine/explore/static/app.js (a plain script, not a module).
import cytoscape from "cytoscape";
import fcose from "cytoscape-fcose";

cytoscape.use(fcose);
globalThis.cytoscape = cytoscape;
