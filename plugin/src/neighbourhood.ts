/**
 * The active note's neighbourhood: the notes it links to and the notes that link to it, out to
 * a depth, within a character budget. Sent with each question so the sidecar can put them in
 * the model's context (it reads their text from its index).
 *
 * Input is Obsidian's `metadataCache.resolvedLinks` (source path -> target path -> link count);
 * backlinks come from inverting it (`getBacklinksForFile` is not public API). No `obsidian`
 * import: the plugin passes the maps and a size function in.
 */
import type { NeighbourNote } from "./generated/contract";

/** source path -> resolved target path -> number of links */
export type ResolvedLinks = Record<string, Record<string, number>>;

/** One neighbour, as `POST /v1/ask` takes it (the depth always set). */
export type Neighbour = Required<NeighbourNote>;
export type Relation = Neighbour["relation"];

export interface NeighbourhoodOptions {
	/** How many links away to look (0: none). */
	depth: number;
	/** Characters of neighbour text the question may carry. */
	budget: number;
	/** A note's length in characters (its file size will do); unknown notes count as 0. */
	sizeOf: (path: string) => number;
	/** The most any one note counts against the budget: the sidecar shows at most this much. */
	perNoteChars?: number;
	/** The API takes at most 200 neighbours. */
	maxNotes?: number;
}

export interface Neighbourhood {
	notes: Neighbour[];
	/** Neighbours found but left out by the budget or the note limit. */
	leftOut: number;
}

/** What the sidecar shows of one neighbour at most (NEIGHBOUR_CHARS in agent/prompts.py). */
export const PER_NOTE_CHARS = 2_500;
export const MAX_NOTES = 200;

/** target -> source -> count: who links to each note. */
export function invertLinks(links: ResolvedLinks): Map<string, Map<string, number>> {
	const backlinks = new Map<string, Map<string, number>>();
	for (const [source, targets] of Object.entries(links)) {
		for (const [target, count] of Object.entries(targets)) {
			let sources = backlinks.get(target);
			if (!sources) backlinks.set(target, (sources = new Map<string, number>()));
			sources.set(source, (sources.get(source) ?? 0) + count);
		}
	}
	return backlinks;
}

/**
 * The notes within `depth` links of `start`, breadth-first: nearer notes first; at each depth
 * outgoing links before backlinks, then the more often linked, then by path. Markdown notes only
 * (attachments and canvases can't go in as text). Notes are taken while their estimated text
 * (size, capped at `perNoteChars`) fits the budget; the rest are counted in `leftOut`.
 */
export function neighbourhood(
	links: ResolvedLinks,
	start: string,
	options: NeighbourhoodOptions,
	backlinks: Map<string, Map<string, number>> = invertLinks(links),
): Neighbourhood {
	const perNote = options.perNoteChars ?? PER_NOTE_CHARS;
	const maxNotes = options.maxNotes ?? MAX_NOTES;
	const ordered: Neighbour[] = [];
	const seen = new Set([start]);
	let frontier = [start];
	for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
		const found: { neighbour: Neighbour; weight: number }[] = [];
		for (const current of frontier) {
			const related: [Relation, Record<string, number> | Map<string, number> | undefined][] = [
				["link", links[current]],
				["backlink", backlinks.get(current)],
			];
			for (const [relation, others] of related) {
				for (const [path, weight] of entries(others)) {
					if (seen.has(path) || !isNote(path)) continue;
					seen.add(path);
					found.push({ neighbour: { path, relation, depth }, weight });
				}
			}
		}
		found.sort(
			(a, b) =>
				rank(a.neighbour.relation) - rank(b.neighbour.relation) ||
				b.weight - a.weight ||
				compare(a.neighbour.path, b.neighbour.path),
		);
		ordered.push(...found.map((f) => f.neighbour));
		frontier = found.map((f) => f.neighbour.path);
	}
	const notes: Neighbour[] = [];
	let left = options.budget;
	for (const neighbour of ordered) {
		const cost = Math.min(Math.max(options.sizeOf(neighbour.path), 0), perNote);
		if (notes.length >= maxNotes || cost > left) break;
		notes.push(neighbour);
		left -= cost;
	}
	return { notes, leftOut: ordered.length - notes.length };
}

/** A note the sidecar can read as text. */
export function isNote(path: string): boolean {
	return path.toLowerCase().endsWith(".md");
}

function entries(
	others: Record<string, number> | Map<string, number> | undefined,
): [string, number][] {
	if (!others) return [];
	return others instanceof Map ? [...others.entries()] : Object.entries(others);
}

function rank(relation: Relation): number {
	return relation === "link" ? 0 : 1;
}

function compare(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
