#!/usr/bin/env python3
"""Validate the multilingual QA sets in this folder (standard library only).

Checks: JSON validity, required fields, language field, note / also_ok paths
exist in the matching vault, permalink matches the note's frontmatter,
every evidence fragment (split on ' ... ') occurs verbatim in the note, unanswerable
entries are consistent (note/permalink null, no also_ok, none in cross-en sets),
at most 2 questions per note per language (over dev2 + heldout; cross-en sets
counted separately), no duplicates (within these files or with the existing
sets in /work/shared/data/qa), and the question text is in the expected script.
Files in this folder that are not obsidian-help-L sets are skipped.
Prints counts per file; exits 1 if anything is flagged.

Usage: python3 validate_qa.py [VAULTS_DIR]
"""
import collections, glob, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
VAULTS = sys.argv[1] if len(sys.argv) > 1 else '/work/shared/data/vaults'
KINDS = {'fact', 'howto', 'identifier', 'unanswerable'}
KEYS = ['q', 'note', 'also_ok', 'evidence', 'lang', 'permalink', 'kind']
NAME = re.compile(r'^obsidian-help-(de|es|fr|zh|ja|ru)\.(cross-en\.)?(dev2|dev|heldout)\.jsonl$')
EXISTING = '/work/shared/data/qa'

def ws(s):
    return re.sub(r'\s+', ' ', s).strip()

def frontmatter(text):
    lines = text.split('\n')
    d = {}
    if lines and lines[0].strip() == '---':
        for l in lines[1:]:
            if l.strip() == '---':
                break
            if ':' in l and not l.startswith((' ', '\t')):
                k, v = l.split(':', 1)
                d[k.strip()] = v.strip().strip('"\'')
    return d

def script_ok(q, lang):
    if lang == 'en':
        return not re.search(r'[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]', q)
    if lang == 'ru':
        return bool(re.search(r'[\u0400-\u04ff]', q))
    if lang == 'ja':
        return bool(re.search(r'[\u3040-\u30ff]', q))
    if lang == 'zh':
        return bool(re.search(r'[\u4e00-\u9fff]', q)) and not re.search(r'[\u3040-\u30ff]', q)
    return not re.search(r'[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]', q)

def main():
    errors = []
    existing_q = set()
    for f in glob.glob(os.path.join(EXISTING, '*.jsonl')):
        for line in open(f, encoding='utf-8'):
            if line.strip():
                existing_q.add(ws(json.loads(line)['q']).lower())
    per_note = collections.Counter()
    seen_q = {}
    files = sorted(f for f in os.listdir(HERE) if f.endswith('.jsonl'))
    for fname in files:
        m = NAME.match(fname)
        if not m:
            print(f'{fname:45s} (skipped: not an obsidian-help multilingual set)')
            continue
        vlang, cross, split = m.group(1), bool(m.group(2)), m.group(3)
        qlang = 'en' if cross else vlang
        vault = os.path.join(VAULTS, f'obsidian-help-{vlang}')
        kinds = collections.Counter()
        n = 0
        for i, line in enumerate(open(os.path.join(HERE, fname), encoding='utf-8'), 1):
            where = f'{fname}:{i}'
            if not line.strip():
                errors.append(f'{where}: blank line'); continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f'{where}: invalid JSON ({e})'); continue
            n += 1
            missing = [k for k in KEYS if k not in r]
            if missing:
                errors.append(f'{where}: missing keys {missing}'); continue
            if '\\u' in line:
                errors.append(f'{where}: non-raw unicode escape (use ensure_ascii=False)')
            kinds[r['kind']] += 1
            if r['kind'] not in KINDS:
                errors.append(f'{where}: bad kind {r["kind"]!r}')
            if r['lang'] != qlang:
                errors.append(f'{where}: lang {r["lang"]!r}, expected {qlang!r}')
            q = r['q']
            if not isinstance(q, str) or len(q.strip()) < 8:
                errors.append(f'{where}: empty/short question')
            elif not script_ok(q, qlang):
                errors.append(f'{where}: question script does not look like {qlang}')
            key = ws(q).lower()
            if key in existing_q:
                errors.append(f'{where}: duplicates a question of the existing sets')
            if key in seen_q:
                errors.append(f'{where}: duplicate of {seen_q[key]}')
            seen_q[key] = where
            if not isinstance(r['also_ok'], list):
                errors.append(f'{where}: also_ok must be a list')
            if r['note'] is None:
                if r['kind'] != 'unanswerable':
                    errors.append(f'{where}: note null but kind {r["kind"]}')
                if cross:
                    errors.append(f'{where}: unanswerable in cross-lingual set')
                if r['also_ok']:
                    errors.append(f'{where}: unanswerable with also_ok')
                continue
            if r['kind'] == 'unanswerable':
                errors.append(f'{where}: kind unanswerable but note set')
            path = os.path.join(vault, r['note'])
            if not os.path.isfile(path):
                errors.append(f'{where}: note not found: {r["note"]}'); continue
            text = open(path, encoding='utf-8').read()
            if frontmatter(text).get('permalink') != r['permalink']:
                errors.append(f'{where}: permalink {r["permalink"]!r} != frontmatter {frontmatter(text).get("permalink")!r}')
            for a in r['also_ok']:
                if a == r['note']:
                    errors.append(f'{where}: also_ok repeats note')
                elif not os.path.isfile(os.path.join(vault, a)):
                    errors.append(f'{where}: also_ok not found: {a}')
            ev = r['evidence']
            if not ev.strip():
                errors.append(f'{where}: empty evidence')
            for frag in ev.split(' ... '):
                if not frag.strip():
                    errors.append(f'{where}: empty evidence fragment')
                elif frag not in text:
                    hint = ' (matches only after whitespace normalisation)' if ws(frag) in ws(text) else ''
                    errors.append(f'{where}: evidence fragment not verbatim in note{hint}: {frag[:80]!r}')
            per_note[(vlang + ('.cross-en' if cross else ''), r['note'])] += 1
        print(f'{fname:45s} {n:3d}  ' + ' '.join(f'{k}={v}' for k, v in sorted(kinds.items())))
    for (lang, note), c in sorted(per_note.items()):
        if c > 2:
            errors.append(f'{lang}: {c} questions on {note} (max 2)')
    if errors:
        print(f'\n{len(errors)} problem(s):')
        for e in errors:
            print('  ' + e)
        sys.exit(1)
    print('\nall checks passed')

if __name__ == '__main__':
    main()
