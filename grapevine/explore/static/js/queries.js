// The operator queries of `grapevine query --list`, run from the page with their parameters.
//
// guild_id is the guild picked at the top of the page; every other parameter gets a field typed
// by its declaration (an empty field is a parameter not given). The server runs the query in a
// read-only, rolled-back transaction after the CLI's own write check, and its refusal, like any
// other error, is shown here word for word.

import { get } from "./api.js";
import { counted, el, fill } from "./dom.js";

const INPUT_TYPES = { int: "number", float: "number", datetime: "text", string: "text" };

export class QueryRunner {
  /** hooks: guild() -> id, result(result, view) shows rows; elements, errors are shown here. */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.queries = [];
  }

  async load() {
    this.queries = await get("queries");
    this.select = el("select", { id: "query-name", "aria-label": "operator query", onchange: () => this.renderForm() },
      this.queries.map((q) => el("option", { value: q.name, text: q.name })));
    const ready = this.queries.find((q) => q.name === "guild_overview")
      || this.queries.find((q) => q.params.every((p) => !p.required || p.name === "guild_id"));
    if (ready) this.select.value = ready.name; // a query that runs as it is, without a field to fill first
    this.about = el("p", { id: "query-about", class: "hint" });
    this.form = el("form", { id: "query-form", onsubmit: (event) => { event.preventDefault(); this.run(); } });
    this.view = el("select", { id: "query-view", "aria-label": "show results as" },
      el("option", { value: "graph", text: "as a graph" }), el("option", { value: "table", text: "as a table" }));
    this.status = el("p", { id: "query-status", role: "status" });
    fill(this.root, el("h2", { text: "Operator queries" }), this.select, this.about, this.form,
      el("div", { class: "actions" }, this.view, el("button", { id: "query-run", text: "Run", onclick: () => this.run() })),
      this.status);
    this.renderForm();
  }

  current() {
    return this.queries.find((q) => q.name === this.select.value);
  }

  renderForm() {
    const query = this.current();
    if (!query) return;
    fill(this.about, el("b", { text: query.title }), ". ", query.answers);
    const fields = query.params.filter((p) => p.name !== "guild_id").map((p) => {
      const input = p.type === "bool"
        ? el("select", { name: p.name }, ["", "true", "false"].map((v) => el("option", { value: v, text: v || "(default)" })))
        : el("input", { name: p.name, type: INPUT_TYPES[p.type] || "text", step: p.type === "float" ? "any" : null,
                        placeholder: p.type === "datetime" ? "2024-05-03T18:00Z" : p.type, required: p.required });
      return el("label", { class: "param" },
        el("span", {}, `${p.name}${p.required ? " *" : ""}`, el("small", { text: ` ${p.type}: ${p.description}` })), input);
    });
    fill(this.form, fields.length ? fields : el("p", { class: "hint", text: "no parameters besides the guild" }),
      el("button", { type: "submit", hidden: true, text: "run" }));
    this.status.textContent = "";
  }

  async run() {
    const query = this.current();
    if (!query) return;
    const params = { guild_id: this.hooks.guild() };
    for (const field of this.form.querySelectorAll("[name]")) params[field.name] = field.value;
    this.status.className = "";
    this.status.textContent = `running ${query.name}…`;
    try {
      const result = await get(`queries/${encodeURIComponent(query.name)}`, params);
      const view = this.view.value === "graph" && result.elements.nodes.length ? "graph" : "table";
      this.status.textContent = `${query.name}: ${counted(result.rows.length, "row")}` + (view === "graph"
        ? `, ${counted(result.elements.nodes.length, "node")} and ${counted(result.elements.edges.length, "relationship")} on the canvas`
        : (this.view.value === "graph" ? " (no nodes in them: shown as a table)" : ""));
      this.hooks.result(result, view);
    } catch (error) {
      this.status.className = "error";
      this.status.textContent = error.message;
    }
  }
}
