/**
 * Answers as the pane shows them: citations and the Sources list. What an answer may load is
 * ./safe-render.ts's.
 *
 * Citations are Obsidian wikilinks, `[[path/Note#Heading]]` (or `[[paper.pdf#page=3]]`); the
 * renderer turns them into `a.internal-link` elements whose `data-href` is the link text,
 * subpath included, ready for `openLinkText`. No `obsidian` import.
 */
import type { NoteRef } from "./events";

/** The link text a rendered internal link opens ("Note#Heading", "paper.pdf#page=3"). */
export function linktextOf(element: Element): string | null {
	const link = element.closest("a.internal-link");
	if (!link) return null;
	const linktext = link.getAttribute("data-href") ?? link.getAttribute("href");
	return linktext ? linktext : null;
}

/**
 * The wikilink text for a source, as the sidecar writes it (`note_link` in agent/citations.py):
 * the path without ".md", then "#" and the last part of the heading path. A PDF's page ("Page 3")
 * becomes "#page=3", the subpath at which Obsidian's PDF viewer opens.
 */
export function noteLink(source: Pick<NoteRef, "file" | "heading">): string {
	const target = source.file.toLowerCase().endsWith(".md") ? source.file.slice(0, -3) : source.file;
	const last = source.heading.split(" > ").pop() ?? "";
	const page = /^page(?: |=)(\d+)$/i.exec(last.trim());
	if (page && source.file.toLowerCase().endsWith(".pdf")) return `${source.file}#page=${page[1]}`;
	const section = last.replace(/[#|^:[\]\\]+/g, " ").split(/\s+/).filter(Boolean).join(" ");
	return section ? `${target}#${section}` : target;
}

/** A source as the Sources list labels it: "Title › Heading" (the heading's last part). */
export function sourceLabel(source: NoteRef): string {
	const title = source.title || source.file.replace(/\.md$/i, "").split("/").pop() || source.file;
	const heading = source.heading.split(" > ").pop() ?? "";
	return heading && heading !== title ? `${title} › ${heading}` : title;
}

/**
 * Split off the answer's closing "Sources:" list (the sidecar appends one; the pane shows
 * `done.sources` instead). Only a list that ends the answer, with nothing but list items after
 * the heading, is split off.
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
				sources: lines.slice(i).join("\n"),
			};
		}
		if (line.trim() !== "" && !/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) break;
	}
	return { body: markdown, sources: "" };
}
