import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { chmodSync, existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "child_process";
import { describe, expect, it } from "vitest";
import { SidecarProcess, sidecarArgv, splitCommand } from "../src/sidecar-process";

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

	it("knows when the command does not exist", () => {
		const exits: [string, boolean][] = [];
		const child = Object.assign(new EventEmitter(), { pid: undefined, stdout: new EventEmitter(), stderr: new EventEmitter(), kill: () => true });
		const sidecar = new SidecarProcess(
			() => child as unknown as ChildProcess,
			() => {},
			"linux",
			(message, notFound) => exits.push([message, notFound]),
		);
		sidecar.start({ command: "vault-agent serve", vault: "/v", port: 8765, token: "t", env: {} });
		child.emit("error", Object.assign(new Error("spawn vault-agent ENOENT"), { code: "ENOENT" }));
		expect(exits).toEqual([['could not start "vault-agent": spawn vault-agent ENOENT', true]]);
		expect([sidecar.running, sidecar.notFound]).toEqual([false, true]);
		sidecar.start({ command: "vault-agent serve", vault: "/v", port: 8765, token: "t", env: {} });
		child.emit("error", Object.assign(new Error("spawn EACCES"), { code: "EACCES" }));
		expect(exits.at(-1)?.[1]).toBe(false);
	});
});

describe("where the sidecar runs", () => {
	/**
	 * A vault is shared content (synced, cloned, shared with a team): a program planted in it must
	 * never be the one started. Windows looks for a command in the working folder before PATH, and
	 * `uv run` uses the project (pyproject.toml) of the working folder; here a PATH with an empty
	 * entry (the working folder, to POSIX) plays that part, with the real `spawn`.
	 */
	it("never in the vault, so a program planted there is not the one started", async () => {
		const vault = realpathSync(mkdtempSync(join(tmpdir(), "vault-")));
		const home = realpathSync(mkdtempSync(join(tmpdir(), "home-")));
		const marker = join(vault, "planted-program-ran");
		writeFileSync(join(vault, "vault-agent"), `#!/bin/sh\ntouch "${marker}"\n`);
		chmodSync(join(vault, "vault-agent"), 0o755);
		let cwd: unknown = null;
		const ended = new Promise<string>((resolve) => {
			const process = new SidecarProcess(
				(program, args, options) => {
					cwd = options.cwd;
					return spawn(program, args, options);
				},
				() => {},
				"linux",
				(message) => resolve(message),
			);
			process.start({
				command: "vault-agent serve",
				vault,
				port: 8765,
				token: "tok",
				env: { PATH: ":/usr/bin:/bin", HOME: home },
			});
		});
		await ended;
		expect(existsSync(marker)).toBe(false);
		expect(cwd).toBe(home);
	});
});
