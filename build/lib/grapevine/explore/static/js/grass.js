// Neo4j Browser's style file (docker/grapevine.grass, parsed by the server) as a cytoscape.js style.
//
// Selectors map one to one: `node.Fact` styles nodes with the class Fact (every label of a node is
// one of its classes), `relationship.ABOUT` edges with the class ABOUT. Rules apply in file order,
// later ones winning, as in Browser, so `node.Closed` after `node.Fact` draws closed facts small
// and grey. Captions follow Browser's templates: `{prop}` is a property, `<type>` the relationship
// type, anything else literal text. One difference: Browser writes a caption inside its node, where
// a fact's text does not fit; here it goes under the node, in the rule's internal text colour
// unless that is white (white on the page's background would not show).

const DARK = "#2A2C34";

function px(value) {
  const number = parseFloat(value);
  return Number.isFinite(number) ? number : undefined;
}

function isWhite(colour) {
  return /^#?(fff|ffffff)$/i.test(String(colour).trim());
}

/** The cytoscape selector of a GraSS selector: node.Fact.Closed -> node.Fact.Closed, relationship.X -> edge.X. */
export function cySelector(selector) {
  const [kind, ...classes] = selector.split(".");
  return (kind === "relationship" ? "edge" : "node") + classes.map((c) => `.${c}`).join("");
}

function matches(selector, kind, classes) {
  const [head, ...wanted] = selector.split(".");
  return head === kind && wanted.every((c) => classes.includes(c));
}

/** The caption Browser would show: the last matching rule's caption template, filled in. */
export function caption(rules, kind, classes, props, type = "") {
  let template = "";
  for (const rule of rules) {
    if (rule.properties.caption !== undefined && matches(rule.selector, kind, classes)) template = rule.properties.caption;
  }
  return template
    .replace(/<type>/g, type)
    .replace(/<id>/g, "")
    .replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name) => {
      const value = props[name];
      if (value === undefined || value === null) return "";
      return Array.isArray(value) ? value.join(", ") : String(value);
    })
    .trim();
}

function nodeStyle(properties) {
  const style = {};
  const size = px(properties.diameter);
  if (size !== undefined) Object.assign(style, { width: size, height: size, "text-max-width": Math.max(size * 2.4, 90) });
  if (properties.color) style["background-color"] = properties.color;
  if (properties["border-color"]) style["border-color"] = properties["border-color"];
  if (properties["border-width"]) style["border-width"] = px(properties["border-width"]);
  if (properties["text-color-internal"]) {
    style.color = isWhite(properties["text-color-internal"]) ? DARK : properties["text-color-internal"];
  }
  if (properties["font-size"]) style["font-size"] = px(properties["font-size"]);
  return style;
}

function edgeStyle(properties) {
  const style = {};
  if (properties.color) Object.assign(style, { "line-color": properties.color, "target-arrow-color": properties.color });
  if (properties["shaft-width"]) style.width = px(properties["shaft-width"]);
  if (properties["font-size"]) style["font-size"] = px(properties["font-size"]);
  if (properties["text-color-external"]) style.color = properties["text-color-external"];
  return style;
}

/** The whole cytoscape stylesheet: base look, the GraSS rules in order, then the page's own states. */
export function stylesheet(rules) {
  const base = [
    { selector: "node", style: {
      label: "data(caption)", "text-valign": "bottom", "text-halign": "center", "text-margin-y": 4,
      "text-wrap": "wrap", "text-outline-color": "#ffffff", "text-outline-width": 2, "border-style": "solid",
      "min-zoomed-font-size": 6,
    } },
    { selector: "edge", style: {
      label: "data(caption)", "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.9,
      "text-rotation": "autorotate", "text-background-color": "#ffffff", "text-background-opacity": 0.8,
      "text-background-padding": 1, "min-zoomed-font-size": 6,
    } },
  ];
  const fromGrass = rules.map((rule) => ({
    selector: cySelector(rule.selector),
    style: rule.selector.startsWith("relationship") ? edgeStyle(rule.properties) : nodeStyle(rule.properties),
  }));
  const states = [
    { selector: "node.closed-later", style: { "border-style": "dashed", "border-width": 3 } },
    { selector: ".asof-hidden", style: { display: "none" } },
    { selector: "node:selected", style: { "border-color": "#1a5fb4", "border-width": 5, "border-style": "double" } },
    { selector: "edge:selected", style: { "line-style": "dashed" } },
    { selector: "node.step", style: { "underlay-color": "#F36924", "underlay-opacity": 0.35, "underlay-padding": 10, "underlay-shape": "ellipse" } },
  ];
  return [...base, ...fromGrass, ...states];
}

/** The fill colour the rules give a node with these labels (the last matching rule's). */
export function nodeColour(rules, labels) {
  let colour = "#A5ABB6";
  for (const rule of rules) {
    if (rule.properties.color && matches(rule.selector, "node", labels)) colour = rule.properties.color;
  }
  return colour;
}

/** Legend entries: one per labelled node rule and relationship type rule, with its colour and caption. */
export function legendEntries(rules) {
  return rules
    .filter((rule) => rule.selector.includes("."))
    .map((rule) => {
      const [kind, ...names] = rule.selector.split(".");
      return {
        kind: kind === "relationship" ? "edge" : "node",
        name: names.join("."),
        colour: rule.properties.color || "#A5ABB6",
        caption: rule.properties.caption || "",
      };
    });
}
