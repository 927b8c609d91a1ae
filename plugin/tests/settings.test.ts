import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, DEVICE_KEYS, normaliseSettings, parseSidecarUrl, splitSettings } from "../src/settings";

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

	it("read the token and how to start the sidecar from the device, never a command from data.json", () => {
		const vault = { autoStart: true, sidecarCommand: "sh -c evil", token: "old", profile: "ollama" };
		expect(normaliseSettings(vault)).toEqual({ ...DEFAULT_SETTINGS, token: "old", profile: "ollama" });
		const device = { autoStart: true, sidecarCommand: "/opt/bin/vault-agent serve", token: "mine" };
		expect(normaliseSettings(vault, device)).toEqual({ ...DEFAULT_SETTINGS, ...device, profile: "ollama" });
		expect(normaliseSettings({ token: "old" }, { token: "" }).token).toBe(""); // cleared on the device
		const { vault: kept, device: local } = splitSettings(normaliseSettings(vault, device));
		expect(Object.keys(kept).some((key) => (DEVICE_KEYS as readonly string[]).includes(key))).toBe(false);
		expect(local).toEqual(device);
	});

	it("know a loopback sidecar URL from another", () => {
		expect(parseSidecarUrl("http://127.0.0.1:8765")).toEqual({ host: "127.0.0.1", port: 8765, loopback: true });
		expect(parseSidecarUrl("http://example.org")).toEqual({ host: "example.org", port: 80, loopback: false });
		expect(parseSidecarUrl("file:///x")).toBeNull();
	});
});
