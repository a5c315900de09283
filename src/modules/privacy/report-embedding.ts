// Every `<` is written `\u003c` so no text can close the script element; a `<` can only occur inside a JSON string, so
// turning each such escape back (not `\\u003c`) restores the served bytes exactly.
export const EMBED_ID = 'signed-report';

const OPEN_TAG = `<script type="application/json" id="${EMBED_ID}">`;
const CLOSE_TAG = '</script>';

export function embedScript(document: string): string {
  return `${OPEN_TAG}${document.replace(/</g, '\\u003c')}${CLOSE_TAG}`;
}

export function extractEmbeddedReport(page: string): string | undefined {
  const start = page.indexOf(OPEN_TAG);
  if (start < 0) return undefined;
  const end = page.indexOf(CLOSE_TAG, start + OPEN_TAG.length);
  if (end < 0) return undefined;
  const embedded = page.slice(start + OPEN_TAG.length, end);
  return embedded.replace(/(?<!\\)((?:\\\\)*)\\u003c/g, '$1<');
}

/** The public key a saved page prints (trust it only after comparing its kid with the one on record). */
export function extractPagePublicKey(page: string): string | undefined {
  const match =
    /<pre id="public-key">(-----BEGIN PUBLIC KEY-----[A-Za-z0-9+/=\s]+-----END PUBLIC KEY-----)<\/pre>/.exec(
      page,
    );
  return match ? `${match[1]}\n` : undefined;
}
