/**
 * Another program on the sidecar's port. Any local user can listen on 127.0.0.1:8765 while the
 * sidecar is not running (before Obsidian starts it, after it stopped); the plugin would then
 * send it the token and every question with the notes it carries. Here a real HTTP server on a
 * free port answers every route the way the sidecar does, except that it can't prove it holds
 * the token, and records what reaches it: the client must send it neither the token nor a
 * question. The requester is Node's own HTTP client over real sockets.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SidecarClient, healthProof, type HttpRequest, type HttpResponse } from "../src/client";
import { describeProblem } from "../src/problems";

const TOKEN = "test-token-0123456789abcdef";
/** The same vector is in tests/test_server_security.py: both sides compute one proof. */
const CHALLENGE = "0123456789abcdef0123456789abcdef";
const PROOF = "2128f73919146dfbe0cd9948861b079eec603545dddd39d1cd764a77ecd08767";
const NOTE = "My bank PIN is 4931-violet.";

interface Seen {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

/** A server answering like the sidecar; `proof` decides what its health answer proves. */
async function squatter(proof: (challenge: string) => Promise<string | null>): Promise<{ url: string; seen: Seen[]; server: Server }> {
	const seen: Seen[] = [];
	const server = createServer((req, res) => {
		let body = "";
		req.on("data", (chunk: Buffer) => (body += chunk.toString()));
		req.on("end", () => {
			seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
			const url = new URL(req.url ?? "/", "http://squatter");
			void (async () => {
				if (url.pathname === "/v1/health") {
					const challenge = url.searchParams.get("challenge");
					const answer = { status: "ok", version: "0.1.0", index: "ready", proof: challenge ? await proof(challenge) : null };
					res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(answer));
				} else if (url.pathname === "/v1/ask") {
					res.writeHead(200, { "Content-Type": "text/event-stream" });
					res.end('event: done\ndata: {"answer":"ok","sources":[]}\n\n');
				} else {
					res.writeHead(200, { "Content-Type": "application/json" }).end('{"state":"idle","files":[],"hits":[]}');
				}
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	servers.push(server);
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const servers: Server[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Obsidian's `requestUrl`, played by Node's HTTP client. */
const nodeRequest = (request: HttpRequest): Promise<HttpResponse> =>
	new Promise((resolve, reject) => {
		const sent = httpRequest(request.url, { method: request.method, headers: request.headers }, (res) => {
			let text = "";
			res.on("data", (chunk: Buffer) => (text += chunk.toString()));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
		});
		sent.on("error", reject);
		sent.end(request.body);
	});

/** The answer stream, over the same client (no browser here). */
const nodeFetch = async (url: string, init: RequestInit): Promise<Response> => {
	const answer = await nodeRequest({
		url,
		method: "POST",
		headers: init.headers as Record<string, string>,
		body: init.body as string,
	});
	return new Response(answer.text, { status: answer.status });
};

function clientOf(url: string, token = TOKEN): SidecarClient {
	return new SidecarClient(() => ({ url, token }), nodeRequest, nodeFetch);
}

const ASK = {
	question: "What is my bank PIN?",
	active_note: { path: "Diary/Bank.md", content: NOTE },
	selection: NOTE,
};

describe("a program on the sidecar's port that can't prove it holds the token", () => {
	// A proof of another token reads as a wrong token (the likelier cause: a sidecar started with
	// its own); it gets nothing all the same.
	const impostors: [string, (challenge: string) => Promise<string | null>, string][] = [
		["answers health without a proof (any web server, or an older sidecar)", async () => null, "impostor"],
		["echoes the challenge", async (challenge) => challenge, "impostor"],
		["proves another token (a sidecar started with its own)", (challenge) => healthProof("another-token", challenge), "unauthorized"],
		["replays a proof it saw before", async () => PROOF, "unauthorized"],
	];

	it.each(impostors)("gets neither the token nor a question when it %s", async (_name, proof, kind) => {
		const { url, seen } = await squatter(proof);
		const client = clientOf(url);
		const calls: [string, Promise<unknown>][] = [
			["index", client.index()],
			["sync", client.sync()],
			["search", client.search(NOTE)],
			["related", client.related("Diary/Bank.md")],
			["ask", client.ask(ASK, { signal: new AbortController().signal, onEvent: () => {} })],
		];
		// Settled together: awaited one by one, a call rejecting while an earlier one is still
		// awaited has no handler yet, and the run reports an unhandled rejection (a flaky failure).
		const outcomes = await Promise.allSettled(calls.map(([, call]) => call));
		outcomes.forEach((outcome, position) => {
			const name = calls[position]?.[0];
			expect(outcome.status, name).toBe("rejected");
			if (outcome.status === "rejected") expect(outcome.reason, name).toMatchObject({ kind });
		});
		expect(seen.length).toBeGreaterThan(0);
		for (const request of seen) {
			expect(request.method).toBe("GET");
			expect(new URL(request.url, url).pathname).toBe("/v1/health");
			expect(request.headers.authorization).toBeUndefined();
			expect(JSON.stringify(request)).not.toContain(TOKEN);
			expect(JSON.stringify(request)).not.toContain("4931");
		}
	});

	it("health itself is asked without the token", async () => {
		const { url, seen } = await squatter(async () => null);
		await clientOf(url).health();
		expect(seen).toHaveLength(1);
		expect(seen[0]?.headers.authorization).toBeUndefined();
	});

	it("is told apart from a wrong token, and the user is told what to do", async () => {
		const { url } = await squatter(async () => null);
		const error = await clientOf(url).index().catch((e: unknown) => e);
		const problem = describeProblem(error, { url, hasToken: true, starting: false });
		expect(problem.message).toContain("could not prove it holds the token");
		expect(problem.actions).toEqual(["open-settings", "retry"]);
	});

	it("with no token set, nothing is sent but health", async () => {
		const { url, seen } = await squatter(async () => null);
		const outcome = clientOf(url, "").ask(ASK, { signal: new AbortController().signal, onEvent: () => {} });
		await expect(outcome).rejects.toMatchObject({ kind: "unauthorized", code: "missing_token" });
		expect(seen).toEqual([]);
	});
});

describe("the sidecar itself", () => {
	it("computes the proof the sidecar computes (tests/test_server_security.py)", async () => {
		expect(await healthProof(TOKEN, CHALLENGE)).toBe(PROOF);
	});

	it("gets the token and the question once it proved it holds the token", async () => {
		const { url, seen } = await squatter((challenge) => healthProof(TOKEN, challenge));
		const client = clientOf(url);
		await client.index();
		const outcome = await client.ask(ASK, { signal: new AbortController().signal, onEvent: () => {} });
		expect(outcome.kind).toBe("done");
		const asked = seen.find((request) => request.url === "/v1/ask");
		expect(asked?.headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(JSON.parse(asked?.body ?? "{}")).toEqual(ASK);
		// Each request that carries the token follows a fresh challenge.
		const challenges = seen.filter((request) => request.url.startsWith("/v1/health?challenge="));
		expect(challenges).toHaveLength(2);
		expect(challenges[0]?.url).not.toBe(challenges[1]?.url);
	});
});
