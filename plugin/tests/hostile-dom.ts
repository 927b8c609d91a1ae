// The shared corpus of hostile markdown (tests/data/hostile-markdown.json, which the sidecar runs
// too: tests/test_security_render.py), rendered the way Obsidian renders raw HTML (markdown-it with
// HTML on), and the check every hostile-answer test makes: nothing in a DOM may load anything but
// a vault resource, no link may lead anywhere but a web page or the vault.
import MarkdownIt from "markdown-it";
import corpus from "../../tests/data/hostile-markdown.json";
import { inertContainer, isSafeLink, isVaultResource } from "../src/safe-render";

export interface Form {
	markdown: string;
	note: string;
	keeps?: string;
}
export const HOSTILE: Form[] = corpus.hostile;
export const BENIGN: Form[] = corpus.benign;
const markdownIt = new MarkdownIt("commonmark", { html: true }).enable(["table", "strikethrough"]);

/** Elements that load or run something whatever their attributes say. */
const ALWAYS_LOADS = new Set([
	"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "link", "meta", "base", "portal",
	"set", "animate", "animatemotion", "animatetransform",
]);
const URL_ATTRIBUTES = new Set([
	"src", "srcset", "imagesrcset", "poster", "background", "data", "action", "formaction", "href", "codebase",
	"archive", "lowsrc", "dynsrc", "manifest", "icon", "ping", "srcdoc", "base",
]);

/** Everything under `root` that would load a non-vault URL or link somewhere unsafe. */
export function violations(root: Element): string[] {
	const found: string[] = [];
	for (const element of Array.from(root.querySelectorAll("*"))) {
		const tag = element.localName.toLowerCase();
		if (ALWAYS_LOADS.has(tag)) found.push(`<${tag}>`);
		for (const attribute of Array.from(element.attributes)) {
			const name = attribute.localName.toLowerCase();
			const value = attribute.value;
			const described = `<${tag} ${name}="${value}">`;
			if (name.startsWith("on")) found.push(described);
			else if ((tag === "a" || tag === "area") && name === "href") {
				if (!isSafeLink(value)) found.push(described);
			} else if (URL_ATTRIBUTES.has(name)) {
				const urls = name.endsWith("srcset") ? value.split(/[\s,]+/).filter((w) => w && !/^\d+(\.\d+)?[wxh]$/.test(w)) : [value];
				if (!urls.every(isVaultResource)) found.push(described);
			} else if ((name === "style" && /[(\\]/.test(value)) || /url\s*\(/i.test(value)) {
				found.push(described);
			}
		}
	}
	return found;
}

/** `markdown` rendered as Obsidian renders raw HTML, into a container where nothing loads. */
export function rendered(markdown: string): HTMLElement {
	const root = inertContainer(document);
	root.append(...parsed(markdown));
	return root;
}

/** The nodes of `markdown` rendered to HTML, parsed (in a document of their own, inert). */
export function parsed(markdown: string): Node[] {
	const html = markdownIt.render(markdown);
	return Array.from(new DOMParser().parseFromString(html, "text/html").body.childNodes);
}
