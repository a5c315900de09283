export type TokenKind = 'word' | 'number' | 'quoted' | 'symbol';

export interface Token {
  readonly kind: TokenKind;
  /** As written (quotes removed for quoted tokens). */
  readonly text: string;
  /** Lower-cased text, for keyword matching. */
  readonly lower: string;
}

export class TokenizeError extends Error {}

const WORD_CHAR = /[\p{L}\p{N}_.\-:/+]/u;
const SYMBOLS = ['>=', '<=', '!=', '<>', '==', '>', '<', '=', ','];
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * Splits natural-language query text into words, numbers, quoted strings and comparison symbols. Any other
 * character (`;`, parentheses, `*`, a stray quote...) is refused rather than skipped: nothing in the text is ever
 * ignored silently.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/u.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '\u201c' || ch === '\u2018') {
      const close = ch === '\u201c' ? '\u201d' : ch === '\u2018' ? '\u2019' : ch;
      const end = text.indexOf(close, i + 1);
      if (end < 0) throw new TokenizeError(`unbalanced quote at position ${i + 1}`);
      const inner = text.slice(i + 1, end);
      if (inner.length === 0) throw new TokenizeError(`empty quoted value at position ${i + 1}`);
      tokens.push({ kind: 'quoted', text: inner, lower: inner.toLowerCase() });
      i = end + 1;
      continue;
    }
    const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
    if (symbol) {
      tokens.push({ kind: 'symbol', text: symbol, lower: symbol });
      i += symbol.length;
      continue;
    }
    if (!WORD_CHAR.test(ch)) throw new TokenizeError(`unexpected character "${ch}" at position ${i + 1}`);
    let end = i;
    while (end < text.length && WORD_CHAR.test(text[end])) end++;
    const raw = text.slice(i, end);
    if (raw.includes('--'))
      throw new TokenizeError(`unexpected "--" at position ${i + 1 + raw.indexOf('--')}`);
    // A trailing full stop ends the sentence; it is not part of the word.
    const word = raw.length > 1 && raw.endsWith('.') ? raw.slice(0, -1) : raw;
    tokens.push({ kind: NUMBER.test(word) ? 'number' : 'word', text: word, lower: word.toLowerCase() });
    i = end;
  }
  return tokens;
}
