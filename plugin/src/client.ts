/**
 * The sidecar's HTTP API as the plugin uses it (see "Sidecar HTTP API" in DESIGN.md).
 *
 * Plain JSON calls go through an injected `HttpRequester` (Obsidian's `requestUrl` in the app:
 * no CORS, but it buffers whole responses); the answer stream goes through an injected `fetch`
 * (streams, and needs the sidecar's CORS answer for app://obsidian.md). Failures become a
 * `SidecarError` whose `kind` says what the user can do. Bodies and answers are the generated
 * contract types (generated/contract.ts). No `obsidian` import.
 *
 * The token, and the notes a question carries, go only to a server that has just proved it holds
 * the token: before each request that needs it, `GET /v1/health` with a fresh random challenge,
 * whose answer must carry HMAC-SHA256(token, "vault-agent-health:" + challenge) (the sidecar's
 * server/security.py). Any local program can listen on the sidecar's port while the sidecar is
 * not running; it gets a challenge, never the token. Health itself is asked without the token.
 */
import { toAgentEvent } from "./events";
import type {
	AgentEvent,
	AgentRequest,
	DoneEvent,
	ErrorEvent,
	HealthResponse,
	IndexResponse,
	RelatedResponse,
	SearchResponse,
	SyncResponse,
} from "./generated/contract";
import { readSse } from "./sse";

export interface HttpRequest {
	url: string;
	method: "GET" | "POST";
	headers: Record<string, string>;
	body?: string;
}

export interface HttpResponse {
	status: number;
	text: string;
}

/** Sends one request and returns the response whatever its status; rejects on network errors. */
export type HttpRequester = (request: HttpRequest) => Promise<HttpResponse>;

export type Fetcher = (input: string, init: RequestInit) => Promise<Response>;

export interface Connection {
	/** e.g. "http://127.0.0.1:8765" */
	url: string;
	token: string;
}

export type AskOutcome =
	| { kind: "done"; done: DoneEvent }
	| { kind: "error"; error: ErrorEvent }
	| { kind: "aborted" };

/**
 * - unreachable: nothing answers at the URL (sidecar not running, wrong port)
 * - impostor: something answers but can't prove it holds any token (another program on the
 *   port, or a sidecar older than this plugin): nothing was sent to it
 * - unauthorized: 401, the token is missing or wrong
 * - refused: 403, the sidecar refused this caller (Host or Origin)
 * - blocked: the sidecar answers plain requests but the stream failed (CORS, proxy)
 * - unavailable: 503, the sidecar runs but its index can't be opened
 * - rejected: another 4xx (a request this client got wrong)
 * - server: 5xx
 * - protocol: an answer this client can't read
 */
export type SidecarErrorKind =
	| "unreachable"
	| "impostor"
	| "unauthorized"
	| "refused"
	| "blocked"
	| "unavailable"
	| "rejected"
	| "server"
	| "protocol";

export class SidecarError extends Error {
	constructor(
		readonly kind: SidecarErrorKind,
		message: string,
		readonly status = 0,
		readonly code = "",
	) {
		super(message);
		this.name = "SidecarError";
	}
}

export class SidecarClient {
	constructor(
		private readonly connection: () => Connection,
		private readonly request: HttpRequester,
		private readonly fetcher: Fetcher,
	) {}

	/** `GET /v1/health` (sent without the token). */
	health(): Promise<HealthResponse> {
		return this.json("GET", "/v1/health", undefined, false);
	}

	/**
	 * Resolves when the server at the configured URL proves it holds the configured token (see
	 * the module comment). Rejects, having sent nothing but the challenge: "unauthorized" when no
	 * token is set, or when the server proves another token (a sidecar started with its own;
	 * only its advice to the user rests on that); "impostor" when it proves nothing;
	 * "unreachable" when nothing answers. Resolves with the connection it checked: the request
	 * that follows goes there, whatever the settings became meanwhile.
	 */
	async verify(): Promise<Connection> {
		const connection = this.connection();
		const { url, token } = connection;
		if (!token) throw new SidecarError("unauthorized", "no token is set", 401, "missing_token");
		const challenge = newChallenge();
		const health = await this.json<HealthResponse>("GET", `/v1/health?challenge=${challenge}`, undefined, false);
		const proof: unknown = health.proof;
		if (proof === (await healthProof(token, challenge))) return connection;
		if (typeof proof === "string" && /^[0-9a-f]{64}$/.test(proof)) {
			throw new SidecarError(
				"unauthorized",
				`the sidecar at ${url} holds another token than the one in the settings; nothing was sent to it`,
				401,
				"invalid_token",
			);
		}
		throw new SidecarError(
			"impostor",
			`the server at ${url} could not prove it holds the token in the settings, so nothing was sent to it`,
		);
	}

	/**
	 * `GET /v1/index`: state, progress, counts and per-file status. The status bar polls this, so
	 * by default only skipped and failed files are listed: a 50k-note vault's full list is megabytes.
	 */
	index(files: "all" | "problems" | "none" = "problems"): Promise<IndexResponse> {
		return this.json("GET", `/v1/index?files=${files}`);
	}

	/** `POST /v1/index/sync`: rescan the vault now (answers at once). */
	sync(): Promise<SyncResponse> {
		return this.json("POST", "/v1/index/sync", { wait: false });
	}

	/** `POST /v1/search` */
	search(query: string, limit = 10): Promise<SearchResponse> {
		return this.json("POST", "/v1/search", { query, limit });
	}

	/** `POST /v1/related`: the notes closest in meaning to `file` (a 404 until it is indexed). */
	related(file: string, limit = 15): Promise<RelatedResponse> {
		return this.json("POST", "/v1/related", { file, limit });
	}

	/**
	 * `POST /v1/ask`: streams events to `onEvent` until `done` or `error`. Resolves with how
	 * the run ended ("aborted" when `signal` fired); rejects with a SidecarError when the
	 * request itself failed.
	 */
	async ask(
		body: AgentRequest,
		options: { signal: AbortSignal; onEvent: (event: AgentEvent) => void },
	): Promise<AskOutcome> {
		// Obsidian's requestUrl takes no signal: a sidecar that accepts the check and never answers
		// it (paused, or another program on the port) must not hold the pane past Stop.
		const checked = await Promise.race([this.verify(), abortOf(options.signal)]);
		if (checked === ABORTED) return { kind: "aborted" };
		const { url, token } = checked;
		let response: Response;
		try {
			response = await this.fetcher(endpoint(url, "/v1/ask"), {
				method: "POST",
				headers: {
					Authorization: `Bearer ${token}`,
					"Content-Type": "application/json",
					Accept: "text/event-stream",
				},
				body: JSON.stringify(body),
				signal: options.signal,
			});
		} catch (error) {
			if (options.signal.aborted) return { kind: "aborted" };
			throw await this.whyFetchFailed(url, error);
		}
		if (!response.ok) throw httpError(response.status, await response.text(), url);
		if (!response.body) throw new SidecarError("protocol", "the sidecar sent an empty answer");
		let outcome: AskOutcome | null = null;
		try {
			await readSse(response.body, (message) => {
				if (outcome) return; // nothing counts after done or error
				const event = toAgentEvent(message);
				if (!event) return;
				options.onEvent(event);
				if (event.event === "done") outcome = { kind: "done", done: event };
				if (event.event === "error") outcome = { kind: "error", error: event };
			});
		} catch (error) {
			// The answer came whole before the connection dropped (a sidecar restarting) or the
			// user pressed Stop: it is the answer still.
			if (outcome) return outcome;
			if (options.signal.aborted) return { kind: "aborted" };
			if (error instanceof SidecarError) throw error;
			throw new SidecarError(
				"protocol",
				`the answer stream broke off: ${error instanceof Error ? error.message : String(error)}`,
			);
		}
		if (outcome) return outcome;
		if (options.signal.aborted) return { kind: "aborted" };
		throw new SidecarError("protocol", "the sidecar closed the answer stream before it was done");
	}

	/** A JSON call; with `authorized`, to a server that proved it holds the token, with it. */
	private async json<T>(method: "GET" | "POST", path: string, body?: unknown, authorized = true): Promise<T> {
		const { url, token } = authorized ? await this.verify() : this.connection();
		let response: HttpResponse;
		try {
			response = await this.request({
				url: endpoint(url, path),
				method,
				headers: {
					...(authorized ? { Authorization: `Bearer ${token}` } : {}),
					...(body === undefined ? {} : { "Content-Type": "application/json" }),
				},
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
			});
		} catch (error) {
			throw unreachable(url, error);
		}
		if (response.status < 200 || response.status >= 300) {
			throw httpError(response.status, response.text, url);
		}
		try {
			return JSON.parse(response.text) as T;
		} catch {
			throw new SidecarError("protocol", `${path} did not answer JSON; is ${url} the sidecar?`);
		}
	}

	/** fetch failed: is the sidecar down, or did something (CORS) block the stream? */
	private async whyFetchFailed(url: string, error: unknown): Promise<SidecarError> {
		try {
			await this.health();
		} catch {
			return unreachable(url, error);
		}
		return new SidecarError(
			"blocked",
			`the sidecar at ${url} is running, but the answer stream was blocked ` +
				`(${error instanceof Error ? error.message : String(error)}); ` +
				"is the URL the sidecar's own address?",
		);
	}
}

/** What the sidecar's health proof signs before the challenge (server/security.py). */
const PROOF_PREFIX = "vault-agent-health:";

/** HMAC-SHA256 of the prefix and `challenge`, keyed with `token`, in lower-case hex. */
export async function healthProof(token: string, challenge: string): Promise<string> {
	const encoder = new TextEncoder();
	const key = await crypto.subtle.importKey("raw", encoder.encode(token), { name: "HMAC", hash: "SHA-256" }, false, [
		"sign",
	]);
	const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(PROOF_PREFIX + challenge));
	return Array.from(new Uint8Array(signature), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** 32 random hex characters: a challenge the server can't have seen before. */
const ABORTED = Symbol("aborted");

/** Resolves with ABORTED once `signal` fires (at once if it has). */
function abortOf(signal: AbortSignal): Promise<typeof ABORTED> {
	return new Promise((resolve) => {
		if (signal.aborted) resolve(ABORTED);
		signal.addEventListener("abort", () => resolve(ABORTED), { once: true });
	});
}

function newChallenge(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(16));
	return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** `base` + `path`, tolerating a trailing slash on the configured URL. */
export function endpoint(base: string, path: string): string {
	return base.replace(/\/+$/, "") + path;
}

function unreachable(url: string, error: unknown): SidecarError {
	const why = error instanceof Error ? error.message : String(error);
	return new SidecarError("unreachable", `can't reach the sidecar at ${url} (${why})`);
}

/** A non-2xx response as a SidecarError; reads the API's `{"error": {code, message}}`. */
export function httpError(status: number, text: string, url: string): SidecarError {
	let code = "";
	let message = "";
	try {
		const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
		if (typeof parsed.error?.code === "string") code = parsed.error.code;
		if (typeof parsed.error?.message === "string") message = parsed.error.message;
	} catch {
		// not the API's error shape: maybe not the sidecar at all
	}
	const detail = message || `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`;
	if (status === 401) return new SidecarError("unauthorized", detail, status, code);
	if (status === 403) return new SidecarError("refused", detail, status, code);
	if (status === 503) return new SidecarError("unavailable", detail, status, code);
	if (status >= 500) return new SidecarError("server", detail, status, code);
	if (status === 404 && !code) {
		return new SidecarError("protocol", `nothing at ${url} looks like the sidecar (404)`, status);
	}
	return new SidecarError("rejected", detail, status, code);
}
