import { randomUUID } from 'node:crypto';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const MAX_QP_LINE = 76;

function isPlainAscii(text: string): boolean {
  return text.split('\n').every((line) => PRINTABLE_ASCII.test(line) && line.length <= 998);
}

/** RFC 2045 quoted-printable of UTF-8 text, with CRLF line ends and soft breaks under 76 characters. */
export function encodeQuotedPrintable(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const bytes = Buffer.from(line, 'utf8');
      let encoded = '';
      bytes.forEach((byte, index) => {
        const isLast = index === bytes.length - 1;
        const literal =
          (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !isLast);
        encoded += literal
          ? String.fromCharCode(byte)
          : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      });
      const out: string[] = [];
      let rest = encoded;
      while (rest.length > MAX_QP_LINE - 1) {
        let cut = MAX_QP_LINE - 1;
        // never split an =XX escape
        const escape = rest.lastIndexOf('=', cut);
        if (escape > cut - 3) cut = escape;
        out.push(`${rest.slice(0, cut)}=`);
        rest = rest.slice(cut);
      }
      out.push(rest);
      return out.join('\r\n');
    })
    .join('\r\n');
}

/** RFC 2047 Q-encoded word for a header value that is not plain ASCII (no base64 anywhere in a message). */
export function encodeHeaderValue(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (PRINTABLE_ASCII.test(clean)) return clean;
  let encoded = '';
  for (const byte of Buffer.from(clean, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (byte === 32) encoded += '_';
    else if (/[A-Za-z0-9!*+\-/]/.test(char)) encoded += char;
    else encoded += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `=?UTF-8?Q?${encoded}?=`;
}

function domainOf(address: string): string {
  const at = /<([^>]+)>/.exec(address)?.[1] ?? address;
  return at.split('@')[1]?.replace(/[^A-Za-z0-9.-]/g, '') || 'localhost';
}

export interface ComposeInput {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly date?: Date;
}

/** A text/plain message; the body is never base64, so links (`token=...`) stay readable in the file. */
export function composeMail(input: ComposeInput): { messageId: string; source: string } {
  const messageId = `<${randomUUID()}@${domainOf(input.from)}>`;
  const text = input.text.replace(/\r\n?/g, '\n');
  const ascii = isPlainAscii(text);
  const headers = [
    `From: ${encodeHeaderValue(input.from)}`,
    `To: ${encodeHeaderValue(input.to)}`,
    `Subject: ${encodeHeaderValue(input.subject)}`,
    `Date: ${(input.date ?? new Date()).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: text/plain; charset=${ascii ? 'us-ascii' : 'utf-8'}`,
    `Content-Transfer-Encoding: ${ascii ? '7bit' : 'quoted-printable'}`,
  ];
  const body = ascii ? text.split('\n').join('\r\n') : encodeQuotedPrintable(text);
  return { messageId, source: `${headers.join('\r\n')}\r\n\r\n${body}\r\n` };
}
