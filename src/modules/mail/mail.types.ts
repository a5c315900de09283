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
 * Where composed mail goes. The default writes `.eml` files to the outbox; an SMTP relay (SERVICE_SMTP_URL) plugs in
 * by exporting MAIL_TRANSPORT from a @Global() module imported by AppModule — it must connect through the egress
 * guard (purpose `mail`).
 */
export interface MailTransport {
  deliver(mail: ComposedMail): Promise<void>;
}

export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
