/**
 * Once for the whole browser suite: one real `vault-agent serve` on examples/vault (the
 * slowest part to start), the harness page's server and the origin-translating proxy in front
 * of the sidecar. Test files get their addresses through `inject`.
 */
import path from "node:path";
import type { TestProject } from "vitest/node";
import { REPO, startHarnessServer, startOriginProxy, startSidecar } from "./servers";

export const TOKEN = "e2e-token-0123456789abcdef";

declare module "vitest" {
	export interface ProvidedContext {
		sidecarUrl: string;
		proxyUrl: string;
		harnessUrl: string;
		token: string;
	}
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	const vault = path.join(REPO, "examples/vault");
	const [sidecar, harness] = await Promise.all([startSidecar(vault, TOKEN), startHarnessServer(vault)]);
	const proxy = await startOriginProxy(sidecar.url, harness.url, 15);
	project.provide("sidecarUrl", sidecar.url);
	project.provide("proxyUrl", proxy.url);
	project.provide("harnessUrl", harness.url);
	project.provide("token", TOKEN);
	return async () => {
		await Promise.all([proxy.close(), harness.close()]);
		await sidecar.close();
	};
}
