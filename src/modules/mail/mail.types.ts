export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  /** Plain text; the message goes out as text/plain (7bit when ASCII, otherwise quoted-printable). */
  readonly text: string;
}

/** A message ready to hand over: the envelope plus the complete RFC 5322 source. */
export interface ComposedMail {
  readonly from: string;
  readonly to: string;
  readonly messageId: string;
  readonly source: string;
}

/**
 * Where composed mail goes: `.eml` files in the outbox, or the SMTP relay of SERVICE_SMTP_URL, which connects
 * through the egress guard (purpose `mail`). MailModule picks one at boot.
 */
export interface MailTransport {
  deliver(mail: ComposedMail): Promise<void>;
}

export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
