import { EventEmitter } from "node:events";
import type { ChildProcess } from "child_process";
import { describe, expect, it } from "vitest";
import { buildAskRequest, describeContext, historyOf } from "../src/context";
import { SidecarError } from "../src/client";
import type { IndexResponse } from "../src/generated/contract";
import { DEFAULT_SETTINGS, normaliseSettings, parseSidecarUrl } from "../src/settings";
import { SidecarProcess, sidecarArgv, splitCommand } from "../src/sidecar-process";
import { describeFailure, describeIndex } from "../src/status";
import { VaultAgentSettingTab } from "../src/settings-tab";
import { Setting } from "../stub/obsidian";
import { loadPlugin } from "./helpers";

describe("settings", () => {
	it("fall back to defaults for missing or invalid values, and clamp numbers", () => {
		expect(normaliseSettings(null)).toEqual(DEFAULT_SETTINGS);
		expect(
			normaliseSettings({
				sidecarUrl: "not a url",
				token: "  t0k  ",
				autoStart: "yes",
				profile: "gpt-9",
				neighbourhoodDepth: 17,
				contextBudget: "5000",
			}),
		).toEqual({ ...DEFAULT_SETTINGS, token: "t0k", neighbourhoodDepth: 3, contextBudget: 5000 });
		expect(normaliseSettings({ sidecarUrl: "http://localhost:9000/", profile: "ollama" })).toMatchObject({
			sidecarUrl: "http://localhost:9000",
			profile: "ollama",
		});
	});

	it("know a loopback sidecar URL from another", () => {
		expect(parseSidecarUrl("http://127.0.0.1:8765")).toEqual({ host: "127.0.0.1", port: 8765, loopback: true });
		expect(parseSidecarUrl("http://example.org")).toEqual({ host: "example.org", port: 80, loopback: false });
		expect(parseSidecarUrl("file:///x")).toBeNull();
	});

	it("tab saves what the user changes", async () => {
		const { plugin, app } = await loadPlugin();
		const tab = app.settingTabs[0] as VaultAgentSettingTab;
		tab.display();
		const rows = tab.containerEl.querySelectorAll(".setting-item");
		expect([...rows].map((row) => row.getAttribute("data-name"))).toEqual([
			"Sidecar URL",
			"Token",
			"Start the sidecar automatically",
			"Sidecar command",
			"Model profile",
			"Context",
			"Linked notes depth",
			"Context budget",
		]);
		const control = (name: string, kind: string) =>
			Setting.created.filter((s) => s.name === name).at(-1)?.controls.find((c) => c.kind === kind)?.onChange as
				| ((value: unknown) => Promise<void>)
				| undefined;
		await control("Token", "text")?.("  s3cret ");
		await control("Linked notes depth", "slider")?.(2);
		await control("Context budget", "text")?.("999999");
		await control("Sidecar URL", "text")?.("nonsense");
		expect(plugin.settings).toMatchObject({ token: "s3cret", neighbourhoodDepth: 2, contextBudget: 100_000, sidecarUrl: "http://127.0.0.1:8765" });
		expect(app.pluginData["vault-agent"]).toMatchObject({ token: "s3cret", contextBudget: 100_000 });
	});
});

describe("the question's body", () => {
	const context = {
		activeNote: { path: "Projects/Kyoto Trip.md", content: "x".repeat(10) },
		selection: "  ",
		neighbourhood: { notes: [{ path: "a.md", relation: "link" as const, depth: 1 }], leftOut: 0 },
	};

	it("carries what is known, and leaves out what is empty", () => {
		expect(buildAskRequest("  Why?  ", context, { profile: "", contextBudget: 100 })).toEqual({
			question: "Why?",
			context_budget: 100,
			active_note: { path: "Projects/Kyoto Trip.md", content: "xxxxxxxxxx" },
			neighbourhood: [{ path: "a.md", relation: "link", depth: 1 }],
		});
		expect(describeContext(context)).toBe("Context: Kyoto Trip and 1 linked note");
		expect(describeContext({ activeNote: null, selection: null, neighbourhood: { notes: [], leftOut: 0 } })).toMatch(/whole vault/);
	});

	it("keeps the last ten exchanges as history, clipped", () => {
		const earlier = Array.from({ length: 12 }, (_, i) => ({ question: `q${i}`, answer: "a".repeat(5_000) }));
		const history = historyOf(earlier);
		expect(history).toHaveLength(20);
		expect(history[0]).toEqual({ role: "user", content: "q2" });
		expect(history[1]?.content).toHaveLength(4_000);
	});
});

describe("the status bar", () => {
	const status = (over: Partial<IndexResponse>): IndexResponse => ({
		state: "watching",
		error: null,
		progress: { state: "watching", files_total: 40, files_done: 40, chunks_done: 120, started_at: null, finished_at: null, last_error: null },
		counts: { files: 40, indexed: 38, skipped: 1, failed: 1, chunks: 120 },
		last_sync: null,
		files: [{ file: "Broken.md", state: "failed", reason: "frontmatter YAML invalid at line 3", chunks: 0, warnings: [] }],
		...over,
	});

	it("shows progress while syncing and counts when done", () => {
		const syncing = describeIndex(status({ state: "syncing", progress: { state: "indexing", files_total: 40, files_done: 12, chunks_done: 30, started_at: null, finished_at: null, last_error: null } }));
		expect(syncing).toMatchObject({ text: "Vault agent: Indexing 12/40", busy: true });
		const idle = describeIndex(status({}));
		expect(idle).toMatchObject({ text: "Vault agent: 38 notes (1 failed)", busy: false });
		expect(idle.detail).toContain("Broken.md: frontmatter YAML invalid at line 3");
	});

	it("says offline or wrong token when the sidecar can't be asked", () => {
		expect(describeFailure(new SidecarError("unreachable", "refused")).text).toBe("Vault agent: offline");
		expect(describeFailure(new SidecarError("unauthorized", "wrong", 401)).text).toBe("Vault agent: wrong token");
	});
});

describe("the sidecar process", () => {
	it("splits the command like a shell would, without running one", () => {
		expect(splitCommand(`uv run --project "/my vaults/va" vault-agent serve --flag='a b' x\\ y`)).toEqual([
			"uv",
			"run",
			"--project",
			"/my vaults/va",
			"vault-agent",
			"serve",
			"--flag=a b",
			"x y",
		]);
		expect(() => splitCommand('vault-agent "serve')).toThrow(/unclosed quote/);
	});

	it("fills in {vault} and {port} as single arguments, adding them when missing", () => {
		expect(sidecarArgv("vault-agent serve --vault {vault} --port {port}", "/home/me/My Vault; rm -rf", 8765)).toEqual([
			"vault-agent",
			"serve",
			"--vault",
			"/home/me/My Vault; rm -rf",
			"--port",
			"8765",
		]);
		expect(sidecarArgv("/opt/va/bin/vault-agent serve", "/v", 9000)).toEqual(["/opt/va/bin/vault-agent", "serve", "--vault", "/v", "--port", "9000"]);
	});

	it("spawns with the token in the environment and kills the whole group on stop", () => {
		const spawned: { program: string; args: readonly string[]; env: unknown; detached: unknown }[] = [];
		const killed: [number, string][] = [];
		const exits: string[] = [];
		const child = Object.assign(new EventEmitter(), { pid: 4242, stdout: new EventEmitter(), stderr: new EventEmitter(), kill: () => true });
		const process = new SidecarProcess(
			(program, args, options) => {
				spawned.push({ program, args, env: options.env, detached: options.detached });
				return child as unknown as ChildProcess;
			},
			(pid, signal) => killed.push([pid, signal]),
			"linux",
			(message) => exits.push(message),
		);
		process.start({ command: "vault-agent serve --vault {vault} --port {port}", vault: "/v", port: 8765, token: "tok", env: { PATH: "/bin" } });
		expect(spawned).toEqual([
			{ program: "vault-agent", args: ["serve", "--vault", "/v", "--port", "8765"], env: { PATH: "/bin", VAULT_AGENT_TOKEN: "tok" }, detached: true },
		]);
		expect(process.running).toBe(true);
		child.stderr.emit("data", "Traceback...\nOSError: port 8765 in use\n");
		child.emit("exit", 1, null);
		expect(exits).toEqual(["exited (code 1):\nTraceback...\nOSError: port 8765 in use"]);
		expect(process.running).toBe(false);

		process.start({ command: "vault-agent serve", vault: "/v", port: 8765, token: "tok", env: {} });
		process.stop();
		child.emit("exit", null, "SIGTERM");
		expect(killed).toEqual([[-4242, "SIGTERM"]]);
		expect(exits).toHaveLength(1); // asked to stop: no "exited" notice
	});
});
