// npm pack's prepack and postpack: the package carries the engine's Go
// sources (engine-src/), so that `pi install` of the tarball can build the
// engine on a machine with a Go toolchain (src/install.ts) — no module
// proxy serves github.com/resetpolicy/resetpolicy, so `go install …@latest`
// cannot. The files are exactly what `go build ./cmd/resetpolicy` reads of
// this module (`go list -deps`: Go and assembly files, files excluded by
// build constraints on this machine but needed on others, embedded files) plus
// go.mod and go.sum; the module's dependencies come from the Go module
// proxy at build time, pinned by go.sum.
//
//   node scripts/pack-engine.mjs copy    # prepack
//   node scripts/pack-engine.mjs clean   # postpack
//
// Another host's package of this repository packs the same sources into
// its own engine-src/ by naming its directory (host/opencode does):
//
//   node ../pi/scripts/pack-engine.mjs copy .

import { execFileSync } from "node:child_process";
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The package being packed: the one named after the mode, else host/pi.
const pkg = process.argv[3] !== undefined ? resolve(process.argv[3]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const out = join(pkg, "engine-src");
const MODULE = "github.com/resetpolicy/resetpolicy";

function goTool() {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		const p = join(dir, "go");
		try {
			accessSync(p, constants.X_OK);
			return p;
		} catch {}
	}
	if (process.env.GOROOT) return join(process.env.GOROOT, "bin", "go");
	return "/usr/local/go/bin/go";
}

const mode = process.argv[2];
rmSync(out, { recursive: true, force: true });
if (mode === "clean") process.exit(0);
if (mode !== "copy") {
	console.error("usage: pack-engine.mjs copy|clean [package directory]");
	process.exit(2);
}
const tmpl = `{{if and .Module (eq .Module.Path "${MODULE}")}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}
{{end}}{{range .CgoFiles}}{{$d}}/{{.}}
{{end}}{{range .SFiles}}{{$d}}/{{.}}
{{end}}{{range .HFiles}}{{$d}}/{{.}}
{{end}}{{range .IgnoredOtherFiles}}{{$d}}/{{.}}
{{end}}{{range .IgnoredGoFiles}}{{$d}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}
{{end}}{{end}}`;
const list = execFileSync(goTool(), ["list", "-deps", "-f", tmpl, "./cmd/resetpolicy"], { cwd: repo, encoding: "utf8" });
const files = ["go.mod", "go.sum", ...list.split("\n").filter((l) => l.trim() !== "").map((f) => relative(repo, f))];
for (const extra of ["LICENSE"]) if (existsSync(join(repo, extra))) files.push(extra);
for (const f of files) {
	if (f.startsWith("..") || f.endsWith("_test.go")) continue;
	mkdirSync(dirname(join(out, f)), { recursive: true });
	copyFileSync(join(repo, f), join(out, f));
}
console.error(`pack-engine: ${files.length} files of ${MODULE} in ${relative(process.cwd(), out) || out}`);
