/**
 * Starting `vault-agent serve` with the plugin and stopping it with the plugin.
 *
 * The command comes from the settings ("vault-agent serve --vault {vault} --port {port}"); it is
 * split into words here and run without a shell, so a vault path with spaces or quotes is one
 * argument and nothing in it is interpreted. The token goes in through `VAULT_AGENT_TOKEN`, so the
 * plugin and the sidecar always agree. On POSIX the sidecar gets its own process group, and
 * stopping it signals the whole group (`uv run` starts Python as a child). No `obsidian` import;
 * `spawn` is injected.
 *
 * It runs in the user's home folder, never in the vault: a vault is shared content (synced,
 * cloned, shared with a team), and Windows looks for a command in the working folder before
 * PATH, as `uv run` looks there for the project whose scripts it runs. A program planted in a
 * vault is never the one started.
 */
import type { ChildProcess, SpawnOptions } from "child_process";
import { isNotFound } from "./install";

export type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
export type Kill = (pid: number, signal: NodeJS.Signals) => void;

export interface StartOptions {
	command: string;
	vault: string;
	port: number;
	token: string;
	env: Record<string, string | undefined>;
}

/** Lines of output kept for the "sidecar exited" notice. */
const KEEP_LINES = 20;

/** Words of a command line: whitespace separates, quotes group, backslash escapes (POSIX-like). */
export function splitCommand(command: string): string[] {
	const words: string[] = [];
	let word = "";
	let inWord = false;
	let quote: '"' | "'" | null = null;
	for (let i = 0; i < command.length; i++) {
		const char = command[i] ?? "";
		if (quote) {
			if (char === quote) quote = null;
			else if (char === "\\" && quote === '"' && i + 1 < command.length) word += command[++i];
			else word += char;
		} else if (char === '"' || char === "'") {
			quote = char;
			inWord = true;
		} else if (char === "\\" && i + 1 < command.length) {
			word += command[++i];
			inWord = true;
		} else if (/\s/.test(char)) {
			if (inWord) words.push(word);
			word = "";
			inWord = false;
		} else {
			word += char;
			inWord = true;
		}
	}
	if (quote) throw new Error("the sidecar command has an unclosed quote");
	if (inWord) words.push(word);
	return words;
}

/**
 * The argv to run: `{vault}` and `{port}` filled in (each placeholder stays one argument);
 * `--vault` and `--port` are added when the command doesn't place them.
 */
export function sidecarArgv(template: string, vault: string, port: number): string[] {
	const words = splitCommand(template).map((word) =>
		word.split("{vault}").join(vault).split("{port}").join(String(port)),
	);
	if (words.length === 0) throw new Error("the sidecar command is empty");
	if (!template.includes("{vault}") && !words.includes("--vault")) words.push("--vault", vault);
	if (!template.includes("{port}") && !words.includes("--port")) words.push("--port", String(port));
	return words;
}

export class SidecarProcess {
	private child: ChildProcess | null = null;
	private output: string[] = [];
	private stopping = false;
	/** The last start failed because the command does not exist. */
	notFound = false;

	constructor(
		private readonly spawn: Spawn,
		private readonly kill: Kill,
		private readonly platform: string,
		/**
		 * Called when the sidecar ends without being asked to, with what it last printed
		 * (`notFound`: its command does not exist).
		 */
		private readonly onExit: (message: string, notFound: boolean) => void,
		/** Called once the command is found and running (Node's "spawn" event). */
		private readonly onSpawned: () => void = () => {},
	) {}

	get running(): boolean {
		return this.child !== null;
	}

	/** Start the sidecar (once; a running one is left alone). Throws if it can't be spawned. */
	start(options: StartOptions): void {
		if (this.child) return;
		const [program, ...args] = sidecarArgv(options.command, options.vault, options.port);
		if (!program) throw new Error("the sidecar command is empty");
		this.stopping = false;
		this.notFound = false;
		this.output = [];
		const child = this.spawn(program, args, {
			cwd: options.env.HOME || options.env.USERPROFILE || undefined,
			env: { ...options.env, VAULT_AGENT_TOKEN: options.token },
			detached: this.platform !== "win32",
			stdio: ["ignore", "pipe", "pipe"],
			windowsHide: true,
		});
		this.child = child;
		const keep = (chunk: Buffer | string) => {
			this.output.push(...String(chunk).split(/\r?\n/).filter(Boolean));
			this.output = this.output.slice(-KEEP_LINES);
		};
		child.stdout?.on("data", keep);
		child.stderr?.on("data", keep);
		child.on("spawn", () => {
			this.notFound = false;
			this.onSpawned();
		});
		child.on("error", (error) => {
			if (this.child === child) this.child = null;
			this.notFound = isNotFound(error);
			this.onExit(`could not start "${program}": ${error.message}`, this.notFound);
		});
		child.on("exit", (code, signal) => {
			if (this.child === child) this.child = null;
			if (this.stopping) return;
			const last = this.output.slice(-3).join("\n");
			this.onExit(`exited (${signal ?? `code ${code}`})${last ? `:\n${last}` : ""}`, false);
		});
	}

	/** Stop the sidecar and whatever it started. */
	stop(): void {
		const child = this.child;
		this.child = null;
		if (!child || child.pid === undefined) return;
		this.stopping = true;
		try {
			if (this.platform === "win32") {
				this.spawn("taskkill", ["/pid", String(child.pid), "/T", "/F"], { windowsHide: true });
			} else {
				this.kill(-child.pid, "SIGTERM"); // the whole process group
			}
		} catch {
			child.kill("SIGTERM");
		}
	}

	/** What the sidecar printed last, for diagnostics. */
	recentOutput(): string {
		return this.output.join("\n");
	}
}
