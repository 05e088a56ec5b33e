// Vendors cytoscape.js and its fCoSE layout from node_modules into one minified script that the
// Python package ships: grapevine/explore/static/vendor/graph.js, with the licences of everything
// bundled in graph.LICENSES.txt beside it. `node build.mjs --check` fails if the committed files
// differ from a fresh build (run `npm ci` first; the versions are pinned by package-lock.json).
import { build } from "esbuild";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, "..", "..", "grapevine", "explore", "static", "vendor");
const bundled = ["cytoscape", "cytoscape-fcose", "cose-base", "layout-base"];

function manifest(name) {
  return JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8"));
}

function licenceText(name) {
  for (const file of ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"]) {
    try {
      return readFileSync(join(here, "node_modules", name, file), "utf8").trim();
    } catch {
      // try the next spelling
    }
  }
  throw new Error(`${name}: no licence file in node_modules/${name}`);
}

const packages = bundled.map((name) => ({ name, ...manifest(name) }));
const banner = "/*! grapevine explore: graph drawing library, built by tools/explore-assets (npm run build).\n"
  + packages.map((p) => ` * ${p.name}@${p.version} (${p.license})`).join("\n")
  + "\n * Licence texts: graph.LICENSES.txt */";
const result = await build({
  entryPoints: [join(here, "src", "graph.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2019"],
  legalComments: "none",
  banner: { js: banner },
  write: false,
  logLevel: "warning",
});
const files = {
  "graph.js": result.outputFiles[0].text,
  "graph.LICENSES.txt": packages.map((p) => `${p.name}@${p.version} (${p.license})\n\n${licenceText(p.name)}\n`).join("\n\n"),
};

if (process.argv.includes("--check")) {
  const stale = Object.entries(files).filter(([name, text]) => {
    try {
      return readFileSync(join(outDir, name), "utf8") !== text;
    } catch {
      return true;
    }
  });
  if (stale.length) {
    console.error(`stale: ${stale.map(([n]) => n).join(", ")}; run npm run build in tools/explore-assets`);
    process.exit(1);
  }
  console.log("graph.js and graph.LICENSES.txt match a fresh build");
} else {
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(outDir, name), text);
  }
  console.log(`wrote ${Object.keys(files).map((n) => join(outDir, n)).join(", ")}`);
}
