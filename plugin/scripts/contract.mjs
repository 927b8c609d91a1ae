// The plugin's side of the API contract: plugin/src/generated/contract.schema.json comes from
// the sidecar's pydantic models (python -m vault_agent.server.contract), contract.ts from that
// schema (json-schema-to-typescript). Nothing in either file is written by hand.
//
//   node plugin/scripts/contract.mjs           regenerate both files
//   node plugin/scripts/contract.mjs --check   regenerate into a temp dir; fail with a diff if the
//                                              checked-in files differ (make lint, CI)
//
// $VAULT_AGENT_PYTHON overrides how Python is run (default: the locked uv environment).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import process from "node:process";
import { compile } from "json-schema-to-typescript";

const REPO = path.resolve(import.meta.dirname, "../..");
const OUT = path.join(REPO, "plugin/src/generated");
const SCHEMA = "contract.schema.json";
const TYPES = "contract.ts";
const BANNER = `/**
 * The sidecar's API contract as TypeScript types: bodies, answers and the events of POST /v1/ask.
 * GENERATED from ${SCHEMA} (itself generated from the sidecar's pydantic models) by
 * plugin/scripts/contract.mjs. Do not edit: change the models, then run \`npm run contract\`.
 */`;

function schemaFromModels() {
	const python = (process.env.VAULT_AGENT_PYTHON ?? "python3 -m uv run --frozen --quiet python").split(" ");
	const [program, ...args] = python;
	return execFileSync(program, [...args, "-m", "vault_agent.server.contract"], {
		cwd: REPO,
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
	});
}

async function typesFromSchema(schemaText) {
	return compile(JSON.parse(schemaText), "VaultAgentContract", {
		bannerComment: BANNER,
		// The sidecar sends no fields beyond the models' (and refuses unknown ones on most bodies).
		additionalProperties: false,
		// Every model is a definition of the schema; none hangs off its root.
		unreachableDefinitions: true,
		style: { useTabs: true, printWidth: 110 },
	});
}

async function generate(dir) {
	const schema = schemaFromModels();
	writeFileSync(path.join(dir, SCHEMA), schema);
	writeFileSync(path.join(dir, TYPES), (await typesFromSchema(schema)) + enumValues(schema));
}

// A string enum of the contract is data the plugin needs at run time too (the fence languages
// an answer may keep): each gets a list `<Name>Values`, so the bundle carries it, not the schema.
function enumValues(schemaText) {
	const lists = Object.entries(JSON.parse(schemaText).$defs)
		.filter(([, definition]) => definition.type === "string" && Array.isArray(definition.enum))
		.map(([name, definition]) => {
			const values = definition.enum.map((value) => `\t${JSON.stringify(value)},`).join("\n");
			return `\nexport const ${name}Values: readonly ${name}[] = [\n${values}\n];\n`;
		});
	return lists.join("");
}

if (process.argv.includes("--check")) {
	const fresh = mkdtempSync(path.join(tmpdir(), "vault-agent-contract-"));
	try {
		await generate(fresh);
		const stale = [SCHEMA, TYPES].filter(
			(name) => readFileSync(path.join(fresh, name), "utf8") !== readOptional(path.join(OUT, name)),
		);
		if (stale.length > 0) {
			for (const name of stale) {
				spawnSync("diff", ["-u", path.join(OUT, name), path.join(fresh, name)], { stdio: "inherit" });
			}
			console.error(
				`\nThe API contract drifted from the sidecar's models (diff above: checked in, then generated): ` +
					`${stale.map((n) => `plugin/src/generated/${n}`).join(", ")}.\nRun \`npm run contract\` and commit the result.`,
			);
			process.exit(1);
		}
		console.log("API contract: plugin/src/generated matches the sidecar's models.");
	} finally {
		rmSync(fresh, { recursive: true, force: true });
	}
} else {
	await generate(OUT);
	console.log(`Wrote plugin/src/generated/${SCHEMA} and ${TYPES}.`);
}

function readOptional(file) {
	try {
		return readFileSync(file, "utf8");
	} catch {
		return "";
	}
}
