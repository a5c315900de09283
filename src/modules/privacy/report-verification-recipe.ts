import { SIGNING_CONTEXT } from './report-signature';

/**
 * Shell commands that verify a saved page (report.html) with openssl and perl/sed only, printed on the page and in
 * docs/privacy-report.md (a test runs the docs' copy and checks the page's is the same).
 */
export const OPENSSL_RECIPE = `# 1. the signed JSON, taken out of the saved page (skip this for a saved JSON body)
perl -0777 -ne 'print $1 if m{<script type="application/json" id="signed-report">(.*?)</script>}s' report.html \\
  | perl -0777 -pe 's/(?<!\\\\)((?:\\\\\\\\)*)\\\\u003c/$1</g' > report.json
# 2. the public key printed on the page (check its kid against the key you trust for this appliance)
perl -0777 -ne 'print "$1\\n" if m{<pre id="public-key">(.*?)</pre>}s' report.html > key.pem
# 3. the signed bytes: the line "${SIGNING_CONTEXT.trimEnd()}", then the JSON without its "signature" member
printf '${SIGNING_CONTEXT.replace('\n', '\\n')}' > signed-bytes
sed -E 's/,"signature":\\{[^}]*\\}//' report.json >> signed-bytes
# 4. the signature value, and the check
sed -E 's/.*"signature":\\{[^}]*"value":"([^"]*)".*/\\1/' report.json | openssl base64 -d -A > sig.bin
openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in signed-bytes -sigfile sig.bin
# "Signature Verified Successfully" (exit 0) means the report is exactly what the appliance signed`;
