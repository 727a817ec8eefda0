"""The secret shapes the redactor knows, in order: specific vendors first, generic forms last.

`RULES` is ordered, specific shapes first (a `ghp_` token is typed `github-token` before the
generic `KEY=value` rule sees it). Patterns are linear: no nested ambiguous quantifiers, and
possessive runs where a run could otherwise be re-scanned. The corpus in
`tests/diagnosis/redact/` proves every rule catches something no other rule does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from diagnosis.secret_checks import (
    authorization,
    credential_file,
    element,
    env_pair,
    header,
    key_value,
    netrc,
    not_uid_gid,
    prose_password,
    stated,
)
from diagnosis.secret_values import (
    bare_aws_secret,
    basic_credential,
    bearer,
    cli_token,
    encoded,
    high_entropy,
    ngc_legacy,
)

__all__ = ["RULES", "Rule"]

# A value as it follows `key=` / `key:` / `--key `: escaped-quoted, quoted, or bare. A bare
# word stops at whitespace, and at quotes/commas/brackets only when they end the value.
_SOFT = r"\"'`,;)}\]"
_WORD = rf"(?:[^\s{_SOFT}]|(?![;,][\w .-]+=)[{_SOFT}]++(?=[^\s{_SOFT}]))*+"
# After `key=` or `key: ` (group `eq`) a bare value is the rest of the line: a passphrase
# (`password: correct horse battery staple`) is many words. It stops where something else
# begins: a word after `.`/`:` (`token: abc. cached`), a comma, semicolon or quote, a `#`
# comment, a flag (`-e`, `--epochs`), the next `key=`/`key: `, or any word that does not start
# with a letter or digit (`(from secret …)`, `&&`, `|`). A `--key value` flag takes one word.
# A word glued to a colon (`staple:x`, `host:5432`) is part of the value, not a next key.
_NOT_A_KEY = r"(?![\w.-]++\\?[\"']?[ \t]*(?:=|:(?![^\s\"'])))"
_MORE_WORDS = rf"(?(eq)(?:(?<![.:])[ \t]++{_NOT_A_KEY}[^\W_]{_WORD})*+)"
# A YAML block scalar (`token: |`, `password: >-`) is the lines after it, indented alike.
_BLOCK = (
    r"[|>][-+1-9]{0,2}[ \t]*(?:#[^\r\n]*+)?\r?\n(?P<ind>[ \t]++)"
    r"(?P<s5>\S[^\r\n]*+(?:\r?\n(?P=ind)[^\r\n]*+)*+)"
)
_VALUE = (
    r"(?:\\\"(?P<s>(?:[^\"\\\n]|\\[^\"\n])*+)\\\""
    r"|\"(?P<s2>(?:[^\"\\\n]|\\.)*+)\"(?=[\s,;:)}\]\\]|$)"
    r"|'(?P<s3>[^'\n]*+)'(?=[\s,;:)}\]\\]|$)"
    rf"|{_BLOCK}|(?P<s4>\S{_WORD}{_MORE_WORDS}))"
)
_KEY_HINTS = "pass pwd pw secret token key auth session cookie credential jwt bearer"
_KEY_HINT = rf"(?i:{'|'.join(_KEY_HINTS.split())})"
# The word before a bare `key` is part of its name: `api key:`, `access key =` (`sensitive_key`
# judges the two words as one, `apikey`).
_QUALIFIER = r"(?:[A-Za-z][\w-]*+[ ](?=(?i:key)(?![\w.-])))?"
# `close`: what closes a quoted key (`"password":`), or a quoted index (`os.environ["X"] =`).
# `eq`: a separator after which a bare value may be words (`=`, Ruby's and PHP's `=>`, Go's
# `:=`, or `:` and a space: YAML); `key:value` glued is a Go map's or an image's, `--key value`
# a flag's: one word.
_SEP = (
    r"(?P<close>\\?(?:[\"']\]?)?)"
    r"(?P<sep>(?P<eq>[ \t]*(?::=|=>?)[ \t]*|[ \t]*:[ \t]+)|[ \t]*:|[ \t]+)"
)


@dataclass(frozen=True)
class Rule:
    """One secret shape: the marker `kind`, the pattern, and an optional second opinion.

    The masked span is the first participating group named `s`, `s2` … `s7`, else the
    whole match; everything else the pattern matched (key, scheme, host) stays visible.
    """

    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[re.Match[str]], bool] | None = None
    hints: tuple[str, ...] = ()  # lowercase; the rule only runs if the text holds one of these


# Cheap pre-checks: a rule whose every match contains one of these (lowercased) is skipped on
# text that holds none, so a clean 64 KB log costs a few substring searches per rule.
_HINTS = {
    "private-key": "private key", "jwt": "eyj", "github-token": "gh github_pat_",
    "gitlab-token": "gl", "huggingface-token": "hf_", "openai-key": "sk-", "ngc-key": "nvapi-",
    "slack-token": "xox xapp-", "vendor-token": "sg. hvs. hvb. hvr. pmak- tskey- dp.",
    "vendor-key": "npm_ pypi- dckr_pat_ ya29. gocspx- dapi glsa_ k_live_ k_test_ iqojb3jpz2lux2vj "
                  "fwogzxivyxdze age-secret-key-",
    "credential-file": "key", "netrc-password": "machine default",
    "slack-webhook": "hooks.slack.com/", "google-api-key": "aiza", "aws-access-key-id": "akia asia",
    "aws-secret-key": "akia asia secret", "azure-storage-key": "accountkey sharedaccess",
    "url-password": ":// %3a%2f%2f", "url-token": "? & ; # sig %3f %26 %23",
    "auth-tuple": "auth credential login pass pwd secret token",
    "cli-token": "login config", "stated-secret": "pass pwd secret token key credential",
    "docker-auth": "auth", "authorization": "authorization", "cookie": "cookie",
    "password-word": "pass pw",
    "bearer-token": "bearer", "basic-credential": "basic", "env-secret": "value",
    "cli-password": "login sshpass mysql mongo redis-cli sqlcmd bcp osql ldap storepass keypass "
                    "smb rpcclient",
    "basic-auth-flag": "-u --user --proxy-user --http-user", "xml-secret": "</",
    "secret-value": _KEY_HINTS,
    "secret-blob": "pass secret token key credential auth session cookie",
}  # fmt: skip


def _rule(kind: str, pattern: str, accept: Callable[[re.Match[str]], bool] | None = None) -> Rule:
    flags = re.DOTALL if kind == "private-key" else 0
    return Rule(kind, re.compile(pattern, flags), accept, tuple(_HINTS.get(kind, "").split()))


_ON_LINE = r"[^\n]{0,160}?[ \t]"  # the rest of a command line, up to one of its flags
_LOG_PREFIX = r"(?:[^\s]{1,64}[ \t]+){1,4}"  # a log line's prefix: up to four words
_PEM_END = r"-----END[A-Z ]*PRIVATE KEY[A-Z ]*-----"
_PEM_NL = r"(?:\r?\n|\\{1,2}(?:r\\{1,2})?n)"  # a newline, or one escaped once or twice
_B64 = r"A-Za-z0-9+/"
# fmt: off
RULES: tuple[Rule, ...] = (
    # No possessive quantifiers here: CPython before 3.11.5 mishandles them with DOTALL
    # alternations, and this rule must hold on every 3.11 (Debian 12 ships 3.11.2).
    # A line may carry its log's prefix (`kubectl logs --timestamps`, `--prefix`, a logger's
    # time and level): then only a whole line of base64 (long, or padded) is the key's.
    _rule("private-key", rf"-----BEGIN[A-Z ]*PRIVATE KEY[A-Z ]*-----(?:(?:{_PEM_NL}[ \t]*"
          rf"(?:[{_B64}=]{{16,}}|[{_B64}=]+(?=[ \t]*(?:[\r\n\\\"']|-----|$))"
          rf"|(?:Proc-Type|DEK-Info):[^\r\n\\\"']*))|[ \t]+[{_B64}=]{{16,}}"
          rf"|\r?\n{_LOG_PREFIX}(?:[{_B64}]{{16,}}=*|[{_B64}]+={{1,2}})(?=[ \t]*(?:\r?\n|$)))*"
          rf"(?:(?:{_PEM_NL}(?:{_LOG_PREFIX})?|[ \t])*{_PEM_END})?"
          rf"|(?<![{_B64}=\\\s])[{_B64}=\\\s]{{40,}}{_PEM_END}"),
    _rule("jwt", r"\beyJ[\w-]{6,}+\.[\w-]{6,}+(?:\.[\w-]*+)?"),
    _rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_\w{40,}+)"),
    _rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|agent)-[\w-]{20,}+"),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}+"),
    _rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|ant-[a-z]+\d\d-)?"
          r"(?=[\w-]*[A-Z])(?=[\w-]*\d)[\w-]{20,}+"),
    _rule("ngc-key", r"\bnvapi-[\w-]{20,}+"),
    _rule("slack-token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}+|xapp-\d-[A-Za-z0-9-]{10,}+)"),
    _rule("slack-webhook", r"(?<=hooks\.slack\.com/)"
          r"(?:services|workflows|triggers|commands|actions)/(?P<s>[\w/%.-]+)"),
    _rule("google-api-key", r"\bAIza[\w-]{35}(?![\w-])"),
    # Vendor tokens made of a prefix and two parts: one secret, both parts masked (a generic
    # rule would see only one part). SendGrid, Vault service/batch/recovery, Postman,
    # Tailscale, Doppler.
    _rule("vendor-token", r"(?<![\w.-])(?:SG\.[\w-]{22}\.[\w-]{43}(?![\w-])|hv[sbr]\.[\w-]{24,}+"
          r"|PMAK-[0-9a-f]{24}-[0-9a-f]{34}(?![\w-])|tskey-(?:auth|client|api)-\w{6,}+-\w{16,}+"
          r"|dp\.(?:st|pt|sa|ct|scim|audit)\.(?:[\w-]{1,40}\.)?[A-Za-z0-9]{40,}+)"),
    # Vendor keys whose prefix says what they are: npm, PyPI, Docker Hub, Google OAuth (an
    # access token, a client secret), Databricks, Grafana, Stripe, an AWS session token
    # (base64 of its own header), an age identity.
    _rule("vendor-key", r"(?<![\w.-])(?:npm_[A-Za-z0-9]{36}|pypi-AgEIcHlwaS5vcmc[\w-]{50,}+"
          r"|dckr_pat_[\w-]{27,}+|ya29\.[\w-]{30,}+|GOCSPX-[\w-]{28}|dapi[0-9a-f]{32}(?:-\d)?"
          r"|glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|[sr]k_(?:live|test)_[0-9A-Za-z]{24,}+"
          r"|(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/]{80,}+={0,2}"
          r"|AGE-SECRET-KEY-1[0-9A-Z]{50,}+)(?![\w-])"),
    _rule("aws-secret-key", r"(?:(?:AKIA|ASIA)[0-9A-Z]{16}[ \t]*[:,|;][ \t]*"
          r"|(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\?[\"']?"
          rf"(?:[ \t]*[:=][ \t]*|[ \t]+)\\?[\"']?)(?P<s>[{_B64}]{{40}})(?![{_B64}=])"
          ),
    _rule("aws-access-key-id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _rule("azure-storage-key",
          r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<s>[^;\s\"']+)"),
    # The user may itself contain `@` (`user@example.com:pw@host`); the password ends at
    # the last `@` before the host.
    # A URL's password; inside another URL's query it is percent-encoded (`https%3A%2F%2F`).
    _rule("url-password", r"(?<=://)[^/\s:\"'<>]*+:(?P<s>[^/\s\"'<>]+)@"
          r"|(?<=%3[Aa]%2[Ff]%2[Ff])(?:[^\s\"'<>%/]|%(?!3[Aa]|2[Ff]|40))*+%3[Aa]"
          r"(?P<s2>(?:[^\s\"'<>%/]|%(?!2[Ff]|40))++)%40"),
    # A URL's query or fragment, or a connection string's `;Pwd=…`: there a value runs on over
    # words to the next `;` (ADO.NET and ODBC allow spaces), or is braced (`Pwd={a;b}`).
    _rule("url-token", r"(?i)(?:(?:[?&#]|(?P<semi>;))(?:key|code|auth|sas|token|access_token"
          r"|id_token|refresh_token|auth_token|api_key|apikey|secret|client_secret|password|pwd)"
          r"|(?:[?&;#]|(?<![\w.%-]))(?:sig|signature|x-amz-signature|x-amz-credential"
          r"|x-amz-security-token|x-goog-signature|x-goog-credential))="
          r"(?:(?(semi)(?P<s>\{[^{}\r\n]*+\})|(?!))|(?P<s2>[^&;\s\"'#<>]+"
          r"(?(semi)(?:[ \t]++(?![\w.-]++[ \t]*=)[^\W_][^&;\s\"'#<>]*+)*+)))"
          # ... and percent-encoded inside another URL's query (`?next=%2Fa%3Ftoken%3D…`)
          r"|(?:%3F|%26|%23)(?:key|code|auth|sas|token|access_token|id_token|refresh_token"
          r"|auth_token|api_key|apikey|secret|client_secret|password|pwd|sig|signature"
          r"|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature"
          r"|x-goog-credential)%3D(?P<s3>(?:[^&;\s\"'#<>%]|%(?!26|23))++)"),
    _rule("ngc-legacy-key", rf"(?:(?P<ngc>(?i:ngc))[^\n]{{0,48}}?)?(?<![{_B64}])"
          rf"(?P<s>[{_B64}]{{84,}}+={{0,2}})(?![{_B64}=])", ngc_legacy),
    # A credential file printed whole: kaggle.json's `"key"` beside its `"username"`.
    _rule("credential-file",
          r"(?P<q>\\?\")key(?P=q)[ \t]*:[ \t]*(?P=q)(?P<s>[^\"\\\n]{8,}+)(?P=q)", credential_file),
    # A `.netrc` entry: `machine <host> [login <user>] password <secret>`, on one line or many.
    _rule("netrc-password", r"(?i:(?<![\w-])(?:machine[ \t]+[\w.:-]+|default)"
          r"(?:\s+(?:login|account|port)[ \t]+[^\s,;]+)*+\s+password)[ \t]+(?P<s>\S+)", netrc),
    _rule("docker-auth",
          rf"(?P<q>\\?\")auth(?P=q)[ \t]*:[ \t]*(?P=q)(?P<s>[{_B64}]{{4,}}+={{0,2}})(?P=q)"),
    _rule("encoded-secret",
          rf"(?<![{_B64}=_-])(?P<s>[{_B64}_-]{{24,}}+={{0,2}})(?![{_B64}=_-])", encoded),
    _rule("authorization", r"(?i)(?P<key>authorization)(?<![a-mo-qs-z0-9_]authorization)"
          r"(?P<close>\\?[\"']?)(?P<sep>[ \t]*[:=][ \t]*)\\?[\"']?"
          r"(?:(?P<s>(?:digest|aws4-hmac-sha256)[ \t][^\r\n\"'\\]*+)"
          r"|(?:(?P<scheme>[A-Za-z][\w-]{1,30}+)[ \t]+(?=[^\s\"',;\\]))?(?P<s2>[^\s\"',;\\]++))",
          authorization),
    _rule("cookie", r"(?i)(?P<key>cookie)(?<!\wcookie)(?P<close>\\?[\"']?)(?P<sep>[ \t]*:[ \t]*)"
          r"\\?[\"']?(?P<s>[^\r\n\"\\]+)", header),
    _rule("bearer-token", r"(?i)bearer(?<!\wbearer)[ \t]+(?P<s>[\w.~+/=-]{8,}+)", bearer),
    # `Basic <base64 of user:password>` away from its header (a Go client's debug dump).
    _rule("basic-credential", rf"(?i:basic)(?<!\wbasic)[ \t]+(?P<s>[{_B64}]{{8,}}+={{0,2}})"
          rf"(?![{_B64}=])", basic_credential),
    # A command line's password flag, as each tool spells it (flags are case-sensitive:
    # `redis-cli -p` is a port, `sqlcmd -p` prints statistics); keytool's and jarsigner's
    # `-storepass` and `-keypass` are theirs alone. mysql's `-p` takes its value
    # glued (`-p secret` is a database name); smbclient's is `-U user%password`.
    _rule("cli-password", rf"(?:(?i:\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane"
          rf"|regctl|helm[ \t]+registry|az)[ \t]+login|\bsshpass|\bmongo(?:sh|dump|restore"
          rf"|export|import|stat|top|files)?)\b{_ON_LINE}(?:-p|--password)"
          rf"|(?i:\bredis-cli)\b{_ON_LINE}(?:-a|--pass)|(?i:\b(?:sqlcmd|bcp|osql))\b{_ON_LINE}-P"
          rf"|(?i:\bldap[a-z]+)\b{_ON_LINE}-w|(?<![\w-])-(?:src|dest|new)?(?:storepass|keypass))"
          r"(?:[ \t]+|=)"
          r"(?:\"(?P<s>[^\"\n]*)\"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s\"']+))"
          rf"|(?i:\bmysql\w*)\b{_ON_LINE}-p"
          r"(?:\"(?P<s4>[^\"\n]*)\"|'(?P<s5>[^'\n]*)'|(?P<s6>[^\s\"'-][^\s\"']*+))"
          rf"|(?i:\b(?:smbclient|rpcclient|smbmap|smbcacls))\b{_ON_LINE}(?:-U|--user)(?:[ \t]+|=)"
          r"[\"']?[^\s%\"']+%(?P<s7>[^\s\"']+)"),
    _rule("basic-auth-flag", r"(?<![\w-])(?:-u|--user|--proxy-user|--http-user)(?:[ \t]+|=)?"
          r"[\"']?[^\s:\"']+:(?P<s>[^\s\"']+)", not_uid_gid),
    # The lookahead finds the word's hint; the word is then taken whole, once (no backtracking
    # over two runs of it: `authauth…` would be quadratic).
    _rule("auth-tuple", r"(?i:\b(?=\w*?(?:auth|credentials?|login|pass|pwd|secret|token))\w++"
          r"[ \t]*=[ \t]*"
          r"|\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|BasicAuth|DigestAuth)\()"
          r"[ \t]*[(\[]?[ \t]*(?P<q>[\"'])[^\"'\n]*(?P=q)[ \t]*,[ \t]*"
          r"(?P<q2>[\"'])(?P<s>[^\"'\n]+)(?P=q2)"),
    _rule("cli-token", r"(?i:\blogin)(?:[ \t]+--(?:relogin|verify|anonymously|token|key|password"
          r"|api-key|with-token|cloud|host=\S+)\b)*[ \t]+(?P<s>[\w.~+/=-]{16,}+)(?![\w.~+/=-])"
          r"|\b(?:npm|yarn|pnpm)[ \t]+config[ \t]+set[ \t]+\S*?:?_auth(?:Token)?[ \t]+"
          r"(?P<s2>[\w.~+/=-]{16,}+)"
          r"|\bwandb\.login\([^)\n]{0,160}?\bkey[ \t]*=[ \t]*(?P<q>[\"'])(?P<s3>[^\"'\n]+)(?P=q)",
          cli_token),
    # `the password is <value>`: a quoted value may be words; so may a bare one after `is:`.
    _rule("stated-secret", r"(?i:\b(?:password|passwd|passphrase|secret|token|api[ _-]?key"
          r"|access[ _-]?key)[ \t]+(?:is|was)(?:[ \t]+set[ \t]+to)?[ \t]*(?P<eq>:)?)[ \t]+"
          rf"(?:(?P<q>[\"'`])(?P<s>[^\"'`\n]++)(?P=q)|(?P<s2>[^\s\"'`]+{_MORE_WORDS}))"
          r"|(?<![\w.$-])(?=[A-Z0-9_]*?(?:PASSWORD|PASSWD|PASS(?![A-Z])|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY"
          r"|CREDENTIALS?))(?P<caps>[A-Z][A-Z0-9_]*+)[ \t]+(?P<s3>[^\s\"'`=:][^\s\"'`]*+)",
          stated),
    _rule("password-word", r"(?i:\b(?:password|passwd|pwd|pw))[ \t]+(?P<s>[^\s\"'`]++)",
          prose_password),
    _rule("env-secret", r"(?i:\bname)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(?P<name>[\w.-]++)"
          r"\\?[\"']?[ \t]*,?[ \t]*(?:\r?\n[ \t-]*)?\\?[\"']?(?i:value)\\?[\"']?"
          r"(?P<eq>[ \t]*[:=][ \t]*)" + _VALUE, env_pair),
    # An XML element named for a credential (Maven's settings.xml, a SOAP fault's echo).
    _rule("xml-secret", r"<(?P<key>[A-Za-z][\w.:-]*+)>(?P<s>[^<\r\n]++)</(?P=key)>", element),
    _rule("secret-value",
          rf"(?<![\w./-])(?=-|{_QUALIFIER}[\w.-]++\\?(?:[\"']\]?)?[ \t]*[:=])"
          rf"(?P<key>{_QUALIFIER}(?=[\w.-]*?{_KEY_HINT})[\w.-]++){_SEP}{_VALUE}", key_value),
    _rule("secret-blob", r"(?i)\b(?:password|passwd|passphrase|secret|token|api[_ -]?key"
          r"|access[_ -]?key|private[_ -]?key|credentials?|auth|session|cookie|(?P<weak>key))\b"
          rf"(?:[^\w\n]{{1,4}}+\w++){{0,2}}?[^\w\n]{{1,4}}+(?P<s>[{_B64}_-]{{20,}}+={{0,2}})"
          rf"(?![{_B64}=_-])", high_entropy),
    # Last: a 40-character key with nothing around it that says what it is.
    _rule("aws-secret-bare", rf"(?<![{_B64}=_.$-])(?P<s>[{_B64}]{{40}})(?![{_B64}=_.-])",
          bare_aws_secret),
)
# fmt: on
