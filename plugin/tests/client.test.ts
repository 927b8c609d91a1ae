import { describe, expect, it } from "vitest";
import { SidecarClient, SidecarError, healthProof, type HttpRequest, type HttpResponse } from "../src/client";
import type { AgentEvent } from "../src/generated/contract";

const CONNECTION = { url: "http://127.0.0.1:8765/", token: "secret" };
const DONE = {
	event: "done",
	answer: "Fed on [[Daily/2026-11-12]].\n\nSources:\n- [[Daily/2026-11-12]]",
	sources: [{ file: "Daily/2026-11-12.md", title: "2026-11-12", heading: "" }],
	removed_citations: [],
	removed_images: [],
	usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
	timings: { total_ms: 120, model_ms: 10, tools_ms: 90, check_ms: 1, overhead_ms: 19 },
	profile: "extractive",
	model: "extractive",
	turns: 2,
};

/** An SSE body in the sidecar's wire format (aiohttp-sse: CRLF line ends), in given chunks. */
function sse(events: object[], chunkSize = 5): ReadableStream<Uint8Array> {
	const text = events
		.map((e) => `event: ${(e as { event: string }).event}\r\ndata: ${JSON.stringify(e)}\r\n\r\n`)
		.join("");
	const bytes = new TextEncoder().encode(text);
	return new ReadableStream({
		start(controller) {
			for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
			controller.close();
		},
	});
}

type Requester = (r: HttpRequest) => Promise<HttpResponse>;

/** `requester`, behind a sidecar's health check that proves it holds CONNECTION's token. */
function genuine(requester: Requester): Requester {
	return async (request) => {
		const challenge = new URL(request.url).searchParams.get("challenge");
		if (!request.url.includes("/v1/health") || challenge === null) return requester(request);
		const proof = await healthProof(CONNECTION.token, challenge);
		return { status: 200, text: JSON.stringify({ status: "ok", version: "0.1.0", index: "ready", proof }) };
	};
}

function client(fetcher: (url: string, init: RequestInit) => Promise<Response>, requester?: Requester) {
	const request = requester ?? (async () => ({ status: 200, text: '{"status":"ok","version":"0.1.0","index":"ready"}' }));
	return new SidecarClient(() => CONNECTION, genuine(request), fetcher);
}

describe("SidecarClient.ask", () => {
	it("posts the question with the token and streams events until done", async () => {
		let sent: { url: string; init: RequestInit } | null = null;
		const events: AgentEvent[] = [];
		const c = client(async (url, init) => {
			sent = { url, init };
			return new Response(
				sse([
					{ event: "status", stage: "searching", message: "Searching", turn: 1 },
					{ event: "delta", text: "Fed ", turn: 2 },
					{ event: "delta", text: "on Sunday", turn: 2 },
					DONE,
					{ event: "delta", text: "after done: ignored", turn: 3 },
				]),
				{ headers: { "Content-Type": "text/event-stream" } },
			);
		});
		const outcome = await c.ask({ question: "When?" }, { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
		expect(sent!.url).toBe("http://127.0.0.1:8765/v1/ask");
		expect((sent!.init.headers as Record<string, string>).Authorization).toBe("Bearer secret");
		expect(JSON.parse(sent!.init.body as string)).toEqual({ question: "When?" });
		expect(events.map((e) => e.event)).toEqual(["status", "delta", "delta", "done"]);
		expect(outcome.kind).toBe("done");
		expect(outcome.kind === "done" && outcome.done.sources[0]?.file).toBe("Daily/2026-11-12.md");
	});

	it("ends with the error event when the run fails", async () => {
		const c = client(async () => new Response(sse([{ event: "error", code: "model_unavailable", message: "Ollama is not running" }])));
		const outcome = await c.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} });
		expect(outcome).toEqual({ kind: "error", error: { event: "error", code: "model_unavailable", message: "Ollama is not running" } });
	});

	it("says aborted when the user stops the answer mid-stream", async () => {
		const controller = new AbortController();
		const c = client(async (_url, init) => {
			const body = new ReadableStream<Uint8Array>({
				start(stream) {
					stream.enqueue(new TextEncoder().encode('event: delta\ndata: {"text":"Fed","turn":1}\n\n'));
					init.signal?.addEventListener("abort", () => stream.error(new DOMException("aborted", "AbortError")));
				},
			});
			return new Response(body);
		});
		const outcome = await c.ask({ question: "q" }, { signal: controller.signal, onEvent: () => controller.abort() });
		expect(outcome).toEqual({ kind: "aborted" });
	});

	it.each([false, true])("keeps the answer done when the stream breaks off after it (stopped: %s)", async (stop) => {
		const controller = new AbortController();
		const c = client(async () => {
			const done = new TextEncoder().encode(`event: done\r\ndata: ${JSON.stringify(DONE)}\r\n\r\n`);
			const body = new ReadableStream<Uint8Array>({
				start(stream) {
					stream.enqueue(done);
				},
				pull(stream) {
					if (stop) controller.abort();
					stream.error(new TypeError("network error")); // the sidecar went away
				},
			});
			return new Response(body);
		});
		const outcome = await c.ask({ question: "q" }, { signal: controller.signal, onEvent: () => {} });
		expect(outcome.kind).toBe("done");
	});

	it("says aborted when the user stops it while the sidecar never answers the token check", async () => {
		const controller = new AbortController();
		let asked = false;
		const c = new SidecarClient(
			() => CONNECTION,
			() => new Promise<HttpResponse>(() => {}), // accepted, never answered
			async () => {
				asked = true;
				return new Response(sse([DONE]));
			},
		);
		setTimeout(() => controller.abort(), 20);
		const outcome = await c.ask({ question: "q" }, { signal: controller.signal, onEvent: () => {} });
		expect(outcome).toEqual({ kind: "aborted" });
		expect(asked).toBe(false);
	});

	it("sends the question where the token was checked, though the settings changed meanwhile", async () => {
		const urls: string[] = [];
		let calls = 0;
		const connection = () => (calls++ === 0 ? CONNECTION : { url: "http://127.0.0.1:9999/", token: "other" });
		const c = new SidecarClient(connection, genuine(async () => ({ status: 500, text: "" })), async (url, init) => {
			urls.push(`${url} ${(init.headers as Record<string, string>).Authorization}`);
			return new Response(sse([DONE]));
		});
		await c.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} });
		expect(urls).toEqual(["http://127.0.0.1:8765/v1/ask Bearer secret"]);
	});

	it("fails clearly when the stream ends before done", async () => {
		const c = client(async () => new Response(sse([{ event: "delta", text: "half", turn: 1 }])));
		await expect(c.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} })).rejects.toMatchObject({
			kind: "protocol",
		});
	});

	it("reads the API's error shape: a wrong token is 'unauthorized'", async () => {
		const c = client(async () =>
			Response.json({ error: { code: "invalid_token", message: "wrong token" } }, { status: 401 }),
		);
		const error = await c.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarError);
		expect(error).toMatchObject({ kind: "unauthorized", code: "invalid_token", status: 401 });
	});

	it("is 'unreachable' when nothing listens, 'blocked' when only the stream fails", async () => {
		const refused = () => Promise.reject(new TypeError("Failed to fetch"));
		const down = client(refused, refused);
		const error = await down.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} }).catch((e: unknown) => e);
		expect(error).toMatchObject({ kind: "unreachable" });

		const blocked = client(refused);
		await expect(blocked.ask({ question: "q" }, { signal: new AbortController().signal, onEvent: () => {} })).rejects.toMatchObject({
			kind: "blocked",
		});
	});
});

describe("SidecarClient JSON calls", () => {
	it("sends the token and parses the answer", async () => {
		const seen: HttpRequest[] = [];
		const c = client(
			() => Promise.reject(new Error("unused")),
			async (request) => {
				seen.push(request);
				return { status: 202, text: '{"joined":false,"report":null}' };
			},
		);
		await c.sync();
		expect(seen[0]).toMatchObject({
			url: "http://127.0.0.1:8765/v1/index/sync",
			method: "POST",
			headers: { Authorization: "Bearer secret", "Content-Type": "application/json" },
			body: '{"wait":false}',
		});
	});

	it("polls the index without the full per-file list", async () => {
		const seen: HttpRequest[] = [];
		const c = client(
			() => Promise.reject(new Error("unused")),
			async (request) => {
				seen.push(request);
				return { status: 200, text: '{"state":"idle","files":[]}' };
			},
		);
		await c.index();
		await c.index("all");
		expect(seen.map((request) => request.url)).toEqual([
			"http://127.0.0.1:8765/v1/index?files=problems",
			"http://127.0.0.1:8765/v1/index?files=all",
		]);
	});

	it("maps statuses to kinds the user can act on", async () => {
		const answering = (status: number, text: string) => client(() => Promise.reject(new Error("unused")), async () => ({ status, text }));
		await expect(answering(401, '{"error":{"code":"missing_token","message":"send it"}}').index()).rejects.toMatchObject({ kind: "unauthorized" });
		await expect(answering(403, '{"error":{"code":"origin_not_allowed","message":"no"}}').index()).rejects.toMatchObject({ kind: "refused" });
		await expect(answering(503, '{"error":{"code":"index_unavailable","message":"locked"}}').index()).rejects.toMatchObject({ kind: "unavailable" });
		await expect(answering(404, "<html>not here</html>").index()).rejects.toMatchObject({ kind: "protocol" });
		await expect(answering(200, "<html>").index()).rejects.toMatchObject({ kind: "protocol" });
	});
});
