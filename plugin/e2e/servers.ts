/**
 * What the browser test runs besides Chromium:
 *
 * - `startSidecar`: a real `vault-agent serve` on the example vault (extractive profile, a temp
 *   data dir, a known token, a free port), ready once its first sync is done.
 * - `startHarnessServer`: serves the harness page, the built main.js, styles.css and the example
 *   vault as JSON, on http://127.0.0.1:<port>.
 * - `startOriginProxy`: the sidecar as the page must see it. The sidecar accepts only Obsidian's
 *   origin (app://obsidian.md), a custom scheme Chromium cannot serve a page from. The proxy
 *   rewrites the page's Origin to app://obsidian.md on the way in and the sidecar's
 *   Access-Control-Allow-Origin back to the page's origin on the way out; everything else,
 *   the preflight answers and the SSE bytes, passes through unchanged and unbuffered. So the
 *   browser still enforces CORS on the sidecar's real answers, and the stream is a real
 *   stream. `paceMs` delays each SSE event a little, like a model writing, so the test can watch
 *   the text grow.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../..");
export const OBSIDIAN_ORIGIN = "app://obsidian.md";

export interface Running {
	url: string;
	port: number;
	close(): Promise<void>;
}

// --- the sidecar -------------------------------------------------------------------------

export interface Sidecar extends Running {
	token: string;
	output(): string;
}

/**
 * `vault-agent serve --vault <vault> --port 0`, resolved when it answers and (unless
 * `waitForIndex` is false) has indexed.
 */
export async function startSidecar(vault: string, token: string, waitForIndex = true): Promise<Sidecar> {
	const dataDir = mkdtempSync(path.join(tmpdir(), "vault-agent-e2e-"));
	const command = (process.env.VAULT_AGENT_SERVE ?? "python3 -m uv run --frozen --quiet vault-agent serve").split(" ");
	const [program, ...args] = command;
	const child = spawn(program!, [...args, "--vault", vault, "--port", "0"], {
		cwd: REPO,
		env: {
			...process.env,
			VAULT_AGENT_DATA_DIR: dataDir,
			VAULT_AGENT_CONFIG_DIR: dataDir,
			VAULT_AGENT_TOKEN: token,
			VAULT_AGENT_LLM__PROFILE: "extractive",
		},
		stdio: ["ignore", "pipe", "pipe"],
	});
	let output = "";
	child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
	const port = await new Promise<number>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`the sidecar did not start:\n${output}`)), 120_000);
		child.on("exit", (code) => reject(new Error(`the sidecar exited (${code}):\n${output}`)));
		const check = setInterval(() => {
			const match = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
			if (match) {
				clearInterval(check);
				clearTimeout(timer);
				resolve(Number(match[1]));
			}
		}, 50);
	});
	const url = `http://127.0.0.1:${port}`;
	if (waitForIndex) await indexed(url, token, child, () => output);
	return {
		url,
		port,
		token,
		output: () => output,
		close: () => stopChild(child).then(() => rmSync(dataDir, { recursive: true, force: true })),
	};
}

async function indexed(url: string, token: string, child: ChildProcess, output: () => string): Promise<void> {
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`the sidecar exited:\n${output()}`);
		const response = await fetch(`${url}/v1/index`, { headers: { Authorization: `Bearer ${token}` } }).catch(() => null);
		if (response?.ok) {
			const index = (await response.json()) as { state: string; counts: { indexed: number } };
			if ((index.state === "watching" || index.state === "idle") && index.counts.indexed > 0) return;
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`the sidecar did not finish indexing:\n${output()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
		child.on("exit", () => {
			clearTimeout(force);
			resolve();
		});
		child.kill("SIGTERM");
	});
}

// --- the harness page ----------------------------------------------------------------------

const FILES: Record<string, [string, string]> = {
	"/": ["plugin/e2e/harness.html", "text/html"],
	"/theme.css": ["plugin/e2e/theme.css", "text/css"],
	"/harness.js": ["plugin/dist/harness.js", "text/javascript"],
	"/main.js": ["main.js", "text/javascript"],
	"/styles.css": ["styles.css", "text/css"],
	"/manifest.json": ["manifest.json", "application/json"],
};

export function startHarnessServer(vault: string): Promise<Running> {
	const vaultJson = JSON.stringify(readVault(vault));
	const server = http.createServer((request, response) => {
		const pathname = new URL(request.url ?? "/", "http://x").pathname;
		if (pathname === "/vault.json") {
			response.writeHead(200, { "Content-Type": "application/json" }).end(vaultJson);
			return;
		}
		const file = FILES[pathname];
		if (!file) {
			response.writeHead(404).end();
			return;
		}
		response.writeHead(200, { "Content-Type": file[1], "Cache-Control": "no-store" }).end(readFileSync(path.join(REPO, file[0])));
	});
	return listen(server);
}

/** The example vault as the fake app needs it: notes, and links resolved as Obsidian would. */
export function readVault(root: string): { notes: { path: string; content: string }[]; resolvedLinks: Record<string, Record<string, number>> } {
	const paths: string[] = [];
	const walk = (dir: string) => {
		for (const name of readdirSync(path.join(root, dir))) {
			if (name.startsWith(".")) continue;
			const relative = dir ? `${dir}/${name}` : name;
			if (statSync(path.join(root, relative)).isDirectory()) walk(relative);
			else paths.push(relative);
		}
	};
	walk("");
	const notes = paths.filter((p) => p.endsWith(".md")).map((p) => ({ path: p, content: readFileSync(path.join(root, p), "utf8") }));
	const resolve = (target: string): string | undefined =>
		paths.find((p) => p === target || p === `${target}.md`) ??
		paths.find((p) => p.split("/").pop() === `${target}.md` || p.split("/").pop() === target);
	const resolvedLinks: Record<string, Record<string, number>> = {};
	for (const note of notes) {
		const links: Record<string, number> = {};
		for (const match of note.content.matchAll(/!?\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g)) {
			const target = resolve((match[1] ?? "").trim());
			if (target && target !== note.path) links[target] = (links[target] ?? 0) + 1;
		}
		resolvedLinks[note.path] = links;
	}
	return { notes, resolvedLinks };
}

// --- the origin-translating proxy -----------------------------------------------------------

export function startOriginProxy(target: string, pageOrigin: string, paceMs = 0): Promise<Running> {
	const upstream = new URL(target);
	const server = http.createServer((request, response) => {
		const headers = { ...request.headers, host: upstream.host };
		if (headers.origin === pageOrigin) headers.origin = OBSIDIAN_ORIGIN;
		const forward = http.request(
			{ hostname: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers },
			(answer) => {
				const out = { ...answer.headers };
				if (out["access-control-allow-origin"] === OBSIDIAN_ORIGIN) out["access-control-allow-origin"] = pageOrigin;
				response.writeHead(answer.statusCode ?? 502, out);
				const sse = String(answer.headers["content-type"] ?? "").startsWith("text/event-stream");
				if (!sse || paceMs <= 0) {
					answer.pipe(response);
					return;
				}
				paceEvents(answer, response, paceMs);
			},
		);
		forward.on("error", (error) => response.destroy(error));
		response.on("close", () => forward.destroy()); // the page aborted: hang up upstream too
		request.pipe(forward);
	});
	return listen(server);
}

/** Pass SSE bytes on one event at a time, `ms` apart (never merging or reordering bytes). */
function paceEvents(from: http.IncomingMessage, to: http.ServerResponse, ms: number): void {
	let pending = "";
	let queue = Promise.resolve();
	from.setEncoding("utf8");
	from.on("data", (chunk: string) => {
		pending += chunk;
		const events: string[] = [];
		for (let end = /\r\n\r\n|\n\n|\r\r/.exec(pending); end; end = /\r\n\r\n|\n\n|\r\r/.exec(pending)) {
			events.push(pending.slice(0, end.index + end[0].length));
			pending = pending.slice(end.index + end[0].length);
		}
		for (const event of events) {
			queue = queue.then(() => new Promise((resolve) => setTimeout(resolve, ms))).then(() => void to.write(event));
		}
	});
	from.on("end", () => void queue.then(() => to.end(pending)));
}

function listen(server: http.Server): Promise<Running> {
	return new Promise((resolve) => {
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address() as AddressInfo;
			resolve({
				url: `http://127.0.0.1:${port}`,
				port,
				close: () =>
					new Promise((done) => {
						server.closeAllConnections();
						server.close(() => done());
					}),
			});
		});
	});
}
