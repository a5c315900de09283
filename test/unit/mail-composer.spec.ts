import { composeMail, encodeHeaderValue, encodeQuotedPrintable } from '../../src/modules/mail/mail-composer';

describe('mail composition', () => {
  it('writes ASCII text as 7bit so links stay greppable', () => {
    const { source, messageId } = composeMail({
      from: 'Decision Service <no-reply@example.test>',
      to: 'ada@example.test',
      subject: 'Confirm',
      text: 'Hello\nhttp://h/auth/verify?token=abc_DEF-123\n',
      date: new Date('2026-01-02T03:04:05Z'),
    });
    expect(messageId).toMatch(/^<[0-9a-f-]+@example\.test>$/);
    expect(source).toContain('Content-Transfer-Encoding: 7bit\r\n');
    expect(source).toContain('Date: Fri, 02 Jan 2026 03:04:05 +0000\r\n');
    expect(source).toContain('\r\n\r\nHello\r\nhttp://h/auth/verify?token=abc_DEF-123\r\n');
  });

  it('uses quoted-printable (never base64) for non-ASCII text and Q-encoded headers', () => {
    const { source } = composeMail({
      from: 'a@b.test',
      to: 'z@b.test',
      subject: 'Grüße',
      text: 'Zoë = café',
    });
    expect(source).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(source).toContain('Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=');
    expect(source).toContain('Zo=C3=AB =3D caf=C3=A9');
    expect(source).not.toMatch(/base64/i);
  });

  it('keeps quoted-printable lines under 77 characters without splitting escapes', () => {
    const encoded = encodeQuotedPrintable('é'.repeat(100));
    for (const line of encoded.split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(encoded.replace(/=\r\n/g, '')).toBe('=C3=A9'.repeat(100));
  });

  it('encodes trailing whitespace and strips header line breaks', () => {
    expect(encodeQuotedPrintable('a ')).toBe('a=20');
    expect(encodeHeaderValue('evil\r\nBcc: x@y')).toBe('evil Bcc: x@y');
  });
});
