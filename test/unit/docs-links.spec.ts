import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** `[text](target)` outside code; the target up to `#`, `?` or a title. */
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [...prose.matchAll(LINK)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'));
}

describe('links in README.md and docs/', () => {
  it.each(DOCS)('%s links only to files inside the repository that exist', (doc) => {
    const broken = relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))
      .map((target) => ({ target, file: resolve(ROOT, dirname(doc), decodeURI(target.split(/[#?]/)[0])) }))
      .filter(({ file }) => relative(ROOT, file).startsWith(`..${sep}`) || !existsSync(file))
      .map(({ target }) => target);
    expect(broken).toEqual([]);
  });
});
