// Building the page's elements. Member names, fact text and message content are user content, so
// nothing here ever parses a string as HTML: text goes in as text nodes (append, textContent) and
// attributes through setAttribute. Nothing in the page uses innerHTML.

/** A new element: attrs sets `class`, `text`, `on<event>` listeners, or plain attributes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = String(value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child); // a string becomes a text node
  }
  return node;
}

/** Replace every child of `node` with `children`. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null));
  return node;
}

const ISO_TIME = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]00:00)$/;

/** A property value as short text: UTC times readable, lists joined, maps as JSON. */
export function show(value) {
  if (value === null || value === undefined) return "";
  const time = typeof value === "string" && ISO_TIME.exec(value);
  if (time) {
    const fraction = (time[3] || "").replace(/0+$/, "");
    return `${time[1]} ${time[2]}${fraction.length > 1 ? fraction.slice(0, 7) : ""} UTC`;
  }
  if (Array.isArray(value)) return value.map(show).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A count with its noun, singular for one: `counted(1, "fact")` is "1 fact", `counted(2, "fact")` "2 facts". */
export function counted(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}

const CAPTION_CHARS = 72; // a caption on the canvas: about three lines under its node, so neighbours do not overlap

/** A caption as the canvas draws it: cut at a word before CAPTION_CHARS (the panel shows it whole). */
export function shortened(text, limit = CAPTION_CHARS) {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
