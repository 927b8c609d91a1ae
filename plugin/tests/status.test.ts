import { describe, expect, it } from "vitest";
import { SidecarError } from "../src/client";
import type { IndexResponse } from "../src/generated/contract";
import { describeFailure, describeIndex, indexWarning } from "../src/status";

describe("the status bar", () => {
	const status = (over: Partial<IndexResponse>): IndexResponse => ({
		state: "watching",
		error: null,
		progress: { state: "watching", files_total: 40, files_done: 40, chunks_done: 120, started_at: null, finished_at: null, last_error: null },
		counts: { files: 40, indexed: 38, skipped: 1, failed: 1, chunks: 120 },
		last_sync: null,
		models: { family: "multilingual", model: null, language: "de", languages: ["de"], reason: "Chosen automatically from 80 sampled notes (74 de, 6 en)." },
		files: [{ file: "Broken.md", state: "failed", reason: "frontmatter YAML invalid at line 3", chunks: 0, warnings: [] }],
		...over,
	});

	it("shows progress while syncing and counts when done", () => {
		const syncing = describeIndex(status({ state: "syncing", progress: { state: "indexing", files_total: 40, files_done: 12, chunks_done: 30, started_at: null, finished_at: null, last_error: null } }));
		expect(syncing).toMatchObject({ text: "Vault Agent: Indexing 12/40", busy: true });
		const idle = describeIndex(status({}));
		expect(idle).toMatchObject({ text: "Vault Agent: 38 notes (1 failed)", busy: false });
		expect(idle.detail).toContain("Broken.md: frontmatter YAML invalid at line 3");
		expect(idle.detail).toContain("Embeddings: multilingual (USE v3); keyword search: de. Chosen automatically");
		expect(describeIndex(status({ models: null })).detail).not.toContain("Embeddings");
	});

	it("names a served embedding model", () => {
		const models = { family: "server" as const, model: "ollama:bge-m3", language: "en", languages: ["en"], reason: "index.embedding is ollama:bge-m3." };
		expect(describeIndex(status({ models })).detail).toContain("Embeddings: ollama:bge-m3 (from a server); keyword search: en. index.embedding is ollama:bge-m3.");
	});

	it("says offline or wrong token when the sidecar can't be asked", () => {
		expect(describeFailure(new SidecarError("unreachable", "refused")).text).toBe("Vault Agent: offline");
		expect(describeFailure(new SidecarError("unauthorized", "wrong", 401)).text).toBe("Vault Agent: wrong token");
	});

	it("warns the pane while the index is being built or unavailable, and not otherwise", () => {
		const syncing = status({ state: "syncing", progress: { state: "indexing", files_total: 40, files_done: 12, chunks_done: 30, started_at: null, finished_at: null, last_error: null } });
		expect(indexWarning(syncing)).toBe("Indexing your vault (12 of 40 notes): answers may miss notes that are not indexed yet.");
		expect(indexWarning(status({ state: "unavailable", error: "held by another process" }))).toMatch(/unavailable \(held by another process\)/);
		expect(indexWarning(status({}))).toBeNull();
		expect(indexWarning(null)).toBeNull();
	});
});
