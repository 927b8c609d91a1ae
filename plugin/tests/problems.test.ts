import { describe, expect, it } from "vitest";
import { SidecarError } from "../src/client";
import { describeProblem } from "../src/problems";

const CONTEXT = { url: "http://127.0.0.1:8765", hasToken: true, starting: false };

describe("problems", () => {
	it("a sidecar that is not running: start it, open the settings, or retry", () => {
		const problem = describeProblem(new SidecarError("unreachable", "refused"), CONTEXT);
		expect(problem.message).toMatch(/not running at http:\/\/127\.0\.0\.1:8765.*vault-agent serve/);
		expect(problem.actions).toEqual(["start-sidecar", "open-settings", "retry"]);
	});

	it("says the sidecar is still starting when the plugin just started it", () => {
		const problem = describeProblem(new SidecarError("unreachable", "refused"), { ...CONTEXT, starting: true });
		expect(problem).toEqual({ message: expect.stringMatching(/still starting/) as unknown, actions: ["retry"] });
	});

	it("a missing token says 'no token set', a wrong one 'rejected'", () => {
		const missing = describeProblem(new SidecarError("unauthorized", "no token", 401, "missing_token"), CONTEXT);
		expect(missing.message).toMatch(/^No token set/);
		expect(missing.message).not.toMatch(/rejected/);
		const empty = describeProblem(new SidecarError("unauthorized", "bad", 401, "invalid_token"), { ...CONTEXT, hasToken: false });
		expect(empty.message).toMatch(/^No token set/);
		const wrong = describeProblem(new SidecarError("unauthorized", "bad", 401, "invalid_token"), CONTEXT);
		expect(wrong.message).toMatch(/rejected the token/);
		expect(wrong.actions).toContain("open-settings");
	});

	it("anything else can be retried", () => {
		expect(describeProblem(new Error("boom"), CONTEXT)).toEqual({ message: "Something went wrong: boom", actions: ["retry"] });
		expect(describeProblem(new SidecarError("unavailable", "index held"), CONTEXT).actions).toEqual(["retry"]);
	});
});
