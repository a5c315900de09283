export function toPublicKeyResponse(key: { publicKeyPem: string; kid: string }): {
  public_key_pem: string;
  kid: string;
} {
  return { public_key_pem: key.publicKeyPem, kid: key.kid };
}
