export { openSecret, sealedKeyId, sealSecret, SECRET_BOX_KEY_BYTES, SecretBoxError, secretBoxKeyId } from './secret-box';
