import { describe, expect, it } from "vitest";
import { renderablePrefix } from "../src/streaming";

describe("renderablePrefix", () => {
	it("holds back a citation still being written", () => {
		expect(renderablePrefix("Fed on [[Daily/2026-11")).toBe("Fed on ");
		expect(renderablePrefix("Fed on [[Daily/2026-11-11]] and ![[pic")).toBe("Fed on [[Daily/2026-11-11]] and ");
		expect(renderablePrefix("Fed on [[Daily/2026-11-11]].")).toBe("Fed on [[Daily/2026-11-11]].");
	});

	it("holds back unpaired bold and code openers of the last paragraph", () => {
		expect(renderablePrefix("**Maya Okafor**\n- Maya is a **senior")).toBe("**Maya Okafor**\n- Maya is a ");
		expect(renderablePrefix("Run `vault-agent ser")).toBe("Run ");
		expect(renderablePrefix("**Done.**\n\nNext `x` and `y`")).toBe("**Done.**\n\nNext `x` and `y`");
	});

	it("waits for words after a bare list or heading marker", () => {
		expect(renderablePrefix("Intro\n- ")).toBe("Intro\n");
		expect(renderablePrefix("Intro\n## ")).toBe("Intro\n");
		expect(renderablePrefix("Intro\n- one")).toBe("Intro\n- one");
	});
});
