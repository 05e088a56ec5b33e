// The drawing: a cytoscape.js graph of what the page has read, laid out with fCoSE.
//
// Nodes and edges arrive as the API sends them ({id, labels, label, key, props} and
// {id, type, source, target, props}); their captions come from the GraSS rules and their classes
// from their labels (or type), adjusted by the time control.

import { caption, stylesheet } from "./grass.js";
import { classesAt } from "./time.js";
import { shortened } from "./dom.js";

export class Canvas {
  constructor(container, rules, onChange) {
    this.rules = rules;
    this.time = null; // ms, or null when the time control is off
    this.axis = "valid";
    this.onChange = onChange;
    this.cy = globalThis.cytoscape({
      container,
      style: stylesheet(rules),
      minZoom: 0.1,
      maxZoom: 4,
      boxSelectionEnabled: false,
    });
  }

  nodeData(node) {
    return { id: node.id, label: node.label, labels: node.labels, key: node.key, props: node.props,
             caption: shortened(caption(this.rules, "node", node.labels, node.props)) };
  }

  edgeData(edge) {
    return { id: edge.id, source: edge.source, target: edge.target, type: edge.type, props: edge.props,
             caption: caption(this.rules, "relationship", [edge.type], edge.props, edge.type) };
  }

  /** Add what is not on the canvas yet (new nodes start around `nearId`), then lay out; the ids added. */
  add(elements, nearId = null) {
    const near = nearId ? this.cy.getElementById(nearId) : null;
    const centre = near && near.nonempty() ? near.position() : { x: 0, y: 0 };
    const added = [];
    this.cy.batch(() => {
      for (const node of elements.nodes) {
        const existing = this.cy.getElementById(node.id);
        if (existing.nonempty()) {
          existing.data(this.nodeData(node)); // fresher properties (a fact closed since)
          continue;
        }
        const angle = Math.random() * 2 * Math.PI;
        const position = { x: centre.x + 80 * Math.cos(angle), y: centre.y + 80 * Math.sin(angle) };
        this.cy.add({ group: "nodes", data: this.nodeData(node), position });
        added.push(node.id);
      }
      for (const edge of elements.edges) {
        if (this.cy.getElementById(edge.id).nonempty()) continue;
        if (this.cy.getElementById(edge.source).empty() || this.cy.getElementById(edge.target).empty()) continue;
        this.cy.add({ group: "edges", data: this.edgeData(edge) });
        added.push(edge.id);
      }
    });
    this.restyle();
    if (added.length) this.layout();
    return added;
  }

  /** Take a node off the canvas (it is gone from the store). */
  remove(id) {
    this.cy.getElementById(id).remove();
    this.changed();
  }

  clear() {
    this.cy.elements().remove();
    this.changed();
  }

  layout() {
    const visible = this.cy.elements().not(".asof-hidden");
    if (visible.empty()) return;
    visible.layout({
      name: "fcose", quality: "default", randomize: false, animate: false, fit: true, padding: 40,
      nodeRepulsion: 6000, idealEdgeLength: 90, nodeSeparation: 80,
    }).run();
  }

  /** Set the time control: `time` in ms (null: off) on `axis`. */
  setTime(time, axis) {
    this.time = time;
    this.axis = axis;
    this.restyle();
  }

  restyle() {
    this.cy.batch(() => {
      this.cy.nodes().forEach((node) => {
        node.classes(classesAt(node.data(), this.time, this.axis));
      });
      this.cy.edges().forEach((edge) => {
        edge.classes([edge.data("type")]);
      });
    });
    this.changed();
  }

  changed() {
    if (this.onChange) this.onChange(this.counts());
  }

  /** What the canvas shows: nodes and relationships drawn, and how many the time control hides. */
  counts() {
    const hidden = this.cy.nodes(".asof-hidden");
    const shownNodes = this.cy.nodes().not(hidden);
    const shownEdges = this.cy.edges().filter((e) => !e.source().hasClass("asof-hidden") && !e.target().hasClass("asof-hidden"));
    return { nodes: shownNodes.length, edges: shownEdges.length, hidden: hidden.length };
  }

  node(id) {
    const found = this.cy.getElementById(id);
    return found.nonempty() ? found : null;
  }
}
