/**
 * The plugin's settings: their defaults, and reading them back from data.json whatever an older
 * version (or a hand edit) left there. No `obsidian` import.
 */
import { asRecord } from "./records";

export const PROFILES = ["", "auto", "extractive", "ollama", "mistral", "openai"] as const;
/** "" leaves the choice to the sidecar (its `llm.profile`). */
export type Profile = (typeof PROFILES)[number];

export interface VaultAgentSettings {
	/** Where `vault-agent serve` listens. */
	sidecarUrl: string;
	/** The sidecar's bearer token. */
	token: string;
	/** Start the sidecar with the plugin (and stop it with the plugin). */
	autoStart: boolean;
	/** The command that starts it; {vault} and {port} are filled in. */
	sidecarCommand: string;
	profile: Profile;
	/** How many links away from the active note to look (0: the note alone). */
	neighbourhoodDepth: number;
	/** Characters of context (selection, active note, neighbours) sent with a question. */
	contextBudget: number;
	/** Where "Save as note" writes conversations ("" or "/": the vault's root). */
	notesFolder: string;
}

/**
 * Settings kept on this device only (Obsidian's per-vault local storage), never in the vault's
 * data.json: a vault shared, cloned or synced from elsewhere must not choose a command this
 * computer runs, and the token should not travel into a git repository or another device.
 */
export const DEVICE_KEYS = ["token", "autoStart", "sidecarCommand"] as const;
export type DeviceKey = (typeof DEVICE_KEYS)[number];
export type DeviceSettings = Pick<VaultAgentSettings, DeviceKey>;
/** Where the device settings live in `App.saveLocalStorage` (Obsidian scopes it to the vault). */
export const DEVICE_STORAGE_KEY = "vault-agent-device-settings";

export const DEFAULT_PORT = 8765;

export const DEFAULT_SETTINGS: VaultAgentSettings = {
	sidecarUrl: `http://127.0.0.1:${DEFAULT_PORT}`,
	token: "",
	autoStart: false,
	sidecarCommand: "vault-agent serve --vault {vault} --port {port}",
	profile: "",
	neighbourhoodDepth: 1,
	contextBudget: 12_000,
	notesFolder: "Vault Agent",
};

export const LIMITS = {
	neighbourhoodDepth: { min: 0, max: 3 },
	/** The sidecar accepts 0..100,000 (`context_budget`). */
	contextBudget: { min: 0, max: 100_000 },
} as const;

/**
 * Settings from whatever `loadData()` (the vault's data.json) and `loadLocalStorage` (this
 * device's) returned; unknown or invalid values fall back. The device keys are read from the
 * device's storage only; a token an older version kept in data.json is taken while the device
 * has none (a token runs nothing), a command or automatic start found there never is.
 */
export function normaliseSettings(raw: unknown, rawDevice: unknown = null): VaultAgentSettings {
	const vaultData = asRecord(raw) ?? {};
	const deviceData = asRecord(rawDevice) ?? {};
	const data: Record<string, unknown> = { ...vaultData, ...deviceData };
	for (const key of DEVICE_KEYS) if (!(key in deviceData)) delete data[key];
	if (!("token" in deviceData) && typeof vaultData.token === "string") data.token = vaultData.token;
	const text = (key: keyof VaultAgentSettings): string | undefined => {
		const value = data[key];
		return typeof value === "string" ? value.trim() : undefined;
	};
	const url = text("sidecarUrl");
	const command = text("sidecarCommand");
	const profile = text("profile") ?? DEFAULT_SETTINGS.profile;
	return {
		// The sidecar runs on this machine: a URL naming another one (typed, or in a data.json
		// shipped with a shared vault) would send it the token, the questions and the notes.
		sidecarUrl: url && parseSidecarUrl(url)?.loopback ? url.replace(/\/+$/, "") : DEFAULT_SETTINGS.sidecarUrl,
		token: text("token") ?? DEFAULT_SETTINGS.token,
		autoStart: typeof data.autoStart === "boolean" ? data.autoStart : DEFAULT_SETTINGS.autoStart,
		sidecarCommand: command ? command : DEFAULT_SETTINGS.sidecarCommand,
		profile: (PROFILES as readonly string[]).includes(profile) ? (profile as Profile) : DEFAULT_SETTINGS.profile,
		neighbourhoodDepth: clampInt(
			data.neighbourhoodDepth,
			LIMITS.neighbourhoodDepth,
			DEFAULT_SETTINGS.neighbourhoodDepth,
		),
		contextBudget: clampInt(data.contextBudget, LIMITS.contextBudget, DEFAULT_SETTINGS.contextBudget),
		notesFolder: text("notesFolder") ?? DEFAULT_SETTINGS.notesFolder,
	};
}

/** The settings split into what data.json keeps and what stays on this device. */
export function splitSettings(settings: VaultAgentSettings): {
	vault: Omit<VaultAgentSettings, DeviceKey>;
	device: DeviceSettings;
} {
	const { token, autoStart, sidecarCommand, ...vault } = settings;
	return { vault, device: { token, autoStart, sidecarCommand } };
}

/** True when data.json asks to start a command: a setting no longer read from there. */
export function vaultAsksToStart(raw: unknown): boolean {
	return asRecord(raw)?.autoStart === true;
}

/** An integer within `limits`, parsed from a number or a string; `fallback` otherwise. */
export function clampInt(
	value: unknown,
	limits: { min: number; max: number },
	fallback: number,
): number {
	const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
	if (typeof number !== "number" || !Number.isFinite(number)) return fallback;
	return Math.min(limits.max, Math.max(limits.min, Math.round(number)));
}

/** The sidecar URL's parts, or null if it is not an http(s) URL. */
export function parseSidecarUrl(url: string): { host: string; port: number; loopback: boolean } | null {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return null;
	}
	if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
	const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
	const host = parsed.hostname;
	const loopback = host === "127.0.0.1" || host === "localhost" || host === "[::1]";
	return { host, port, loopback };
}
