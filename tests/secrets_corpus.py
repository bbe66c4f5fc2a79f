"""A labelled corpus for the credential detector: real-format credentials and harmless look-alikes.

Every credential is made up. Token bodies are drawn from a seeded generator and glued to their
vendor prefix at import time, so this file never spells out a complete token for repository
secret scanners to trip on, and the corpus is the same on every run.

``SECRETS`` holds (text, value): the detector must report a finding covering ``value``.
``LOOKALIKES`` holds text that resembles a credential but is not one: no finding at all.
``measure()`` scores the detector on both; tests/test_secrets_corpus.py and
benchmarks/secrets_corpus.py report its figures.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

from ihmt.privacy.secrets import find_secrets

_RNG = random.Random(20261201)
_ALNUM = string.ascii_letters + string.digits
_UPPER_DIGITS = string.ascii_uppercase + string.digits
_HEXDIGITS = "0123456789abcdef"
_URLSAFE = _ALNUM + "-_"


def _pick(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _jwt(claims: dict[str, object]) -> str:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64url(json.dumps(claims).encode())
    return ".".join([head, body, _b64url(bytes(_RNG.randrange(256) for _ in range(32)))])


def _pem(label: str, lines: int = 4) -> str:
    kind = " ".join([label, "PRIVATE", "KEY"]).strip()
    body = [_pick(_ALNUM + "+/", 64) for _ in range(lines)]
    return "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])


AWS_ID = "AK" + "IA" + _pick(_UPPER_DIGITS, 16)
AWS_TEMP = "AS" + "IA" + _pick(_UPPER_DIGITS, 16)
AWS_SECRET = _pick(_ALNUM + "/+", 40)
GH_CLASSIC = "gh" + "p_" + _pick(_ALNUM, 36)
GH_APP = "gh" + "s_" + _pick(_ALNUM, 36)
GH_FINE = "github" + "_pat_" + _pick(_ALNUM, 22) + "_" + _pick(_ALNUM, 59)
GITLAB = "gl" + "pat-" + _pick(_URLSAFE, 20)
SLACK_BOT = (
    "xo"
    + "xb-"
    + _pick(string.digits, 12)
    + "-"
    + _pick(string.digits, 13)
    + "-"
    + _pick(_ALNUM, 24)
)
SLACK_USER = (
    "xo"
    + "xp-"
    + _pick(string.digits, 12)
    + "-"
    + _pick(string.digits, 12)
    + "-"
    + _pick(_ALNUM, 32)
)
SLACK_HOOK = (
    "https://hooks.slack"
    + ".com/services/T"
    + _pick(_UPPER_DIGITS, 8)
    + "/B"
    + _pick(_UPPER_DIGITS, 10)
    + "/"
    + _pick(_ALNUM, 24)
)
STRIPE_LIVE = "sk" + "_live_" + _pick(_ALNUM, 24)
STRIPE_RESTRICTED = "rk" + "_live_" + _pick(_ALNUM, 24)
GOOGLE = "AI" + "za" + _pick(_URLSAFE, 35)
OPENAI = "sk" + "-" + _pick(_ALNUM, 48)
OPENAI_PROJ = "sk" + "-proj-" + _pick(_URLSAFE, 120)
ANTHROPIC = "sk" + "-ant-api03-" + _pick(_URLSAFE, 93) + "AA"
NPM = "np" + "m_" + _pick(_ALNUM, 36)
SENDGRID = "S" + "G." + _pick(_URLSAFE, 22) + "." + _pick(_URLSAFE, 43)
TWILIO = "S" + "K" + _pick(_HEXDIGITS, 32)
HUGGING_FACE = "h" + "f_" + _pick(_ALNUM, 34)
PYPI = "py" + "pi-AgEIcHlwaS5vcmc" + _pick(_URLSAFE, 70)
JWT_SESSION = _jwt({"sub": "4711", "name": "Ana Ruiz", "iat": 1764547200})
JWT_SERVICE = _jwt({"iss": "billing", "scope": "payments:write", "exp": 1767225600})
RSA_KEY = _pem("RSA")
OPENSSH_KEY = _pem("OPENSSH", 3)
EC_KEY = _pem("EC", 2)
PKCS8_KEY = _pem("", 3)
AZURE_ACCOUNT_KEY = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(64))).decode()
AZURE_SAS_KEY = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()
BASIC = base64.b64encode(b"deploy:Zq8w!Lm3xT4").decode()
BEARER = _pick(_ALNUM, 40)
HEX_KEY = _pick(_HEXDIGITS, 32)
GENERIC_TOKEN = _pick(_ALNUM, 40)

# (text, the secret value as it appears in the text)
SECRETS: list[tuple[str, str]] = [
    # vendor tokens
    (f"aws_access_key_id = {AWS_ID}", AWS_ID),
    (f"temporary credentials from the CI log: {AWS_TEMP}", AWS_TEMP),
    (f"[prod]\naws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET),
    (f"export GITHUB_TOKEN={GH_CLASSIC}", GH_CLASSIC),
    (f"the release bot uses {GH_APP} until Friday", GH_APP),
    (f"fine-grained token for the docs repo: {GH_FINE}", GH_FINE),
    (f"git clone https://oauth2:{GITLAB}@gitlab.com/team/app.git", GITLAB),
    (f'SLACK_BOT_TOKEN="{SLACK_BOT}"', SLACK_BOT),
    (f"my user token {SLACK_USER} (do not share)", SLACK_USER),
    (f"alerts go to {SLACK_HOOK}", SLACK_HOOK),
    (f"Stripe.api_key = '{STRIPE_LIVE}'", STRIPE_LIVE),
    (f"restricted key for the reporting job: {STRIPE_RESTRICTED}", STRIPE_RESTRICTED),
    (f"maps key {GOOGLE} is limited to our domain", GOOGLE),
    (f"OPENAI_API_KEY={OPENAI}", OPENAI),
    (f'{{"openai_key": "{OPENAI_PROJ}"}}', OPENAI_PROJ),
    (f"export ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC),
    (f"//registry.npmjs.org/:_authToken={NPM}", NPM),
    (f"SENDGRID_API_KEY={SENDGRID}", SENDGRID),
    (f"twilio api key {TWILIO} for the SMS fallback", TWILIO),
    (f"huggingface-cli login --token {HUGGING_FACE}", HUGGING_FACE),
    (f"[pypi]\nusername = __token__\npassword = {PYPI}\n", PYPI),
    # structural
    (f"Authorization: Bearer {JWT_SESSION}", JWT_SESSION),
    (f"the service token is {JWT_SERVICE} and expires in January", JWT_SERVICE),
    (f"deploy key for staging:\n{RSA_KEY}\n", RSA_KEY),
    (f"{OPENSSH_KEY}\n", OPENSSH_KEY),
    (f"ec key\n\n{EC_KEY}", EC_KEY),
    (f"tls.key contents:\n{PKCS8_KEY}", PKCS8_KEY),
    (f"Authorization: Basic {BASIC}", BASIC),
    (f"curl -H 'Authorization: Bearer {BEARER}' https://api.internal", BEARER),
    # connection strings and URLs
    ("DATABASE_URL=postgres://app:Dxo5pCJFz2B3x@db.internal:5432/app", "Dxo5pCJFz2B3x"),
    ("mysql://root:0M8KVM!w8MDaD3@127.0.0.1:3306/shop", "0M8KVM!w8MDaD3"),
    ("psql postgresql://ana:Tr#4nq!9Lk@pg.internal/crm", "Tr#4nq!9Lk"),
    ("MONGO_URI=mongodb+srv://ana:p%40ss%23W0rd7@cluster0.ab1cd.mongodb.net/test", "p%40ss%23W0rd7"),
    ("redis://:aD7XBPgUbq2R@cache:6379/0", "aD7XBPgUbq2R"),
    ("amqp://svc:Rb!t:m9Q2x@rabbit.local:5672/", "Rb!t:m9Q2x"),
    ("postgres://etl:H3ll0@W0rld!@warehouse:5432/dw", "H3ll0@W0rld!"),
    ("pip install --index-url https://deploy:e27WH77hBlyqz@pypi.corp.local/simple pkg", "e27WH77hBlyqz"),
    (
        "DefaultEndpointsProtocol=https;AccountName=ihmtlogs;"
        f"AccountKey={AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net",
        AZURE_ACCOUNT_KEY,
    ),
    (
        "Endpoint=sb://ihmt.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        f"SharedAccessKey={AZURE_SAS_KEY}",
        AZURE_SAS_KEY,
    ),
    ("Server=sql1;Database=crm;User Id=sa;Password=MyS3cr3t!Pw;", "MyS3cr3t!Pw"),
    # .env, config and code
    ("DB_PASSWORD=supersecretvalue\nDB_HOST=db\n", "supersecretvalue"),
    ('password = "hunter2xyz"', "hunter2xyz"),
    ("SMTP_PASS=mQ7!vz2Lp9", "mQ7!vz2Lp9"),
    ("auth:\n  token: " + GENERIC_TOKEN + "\n", GENERIC_TOKEN),
    (f"app.config['SECRET_KEY'] = '{HEX_KEY}'", HEX_KEY),
    ("OAUTH_CLIENT_SECRET='8-8BV8#luteLKW'", "8-8BV8#luteLKW"),
    ("define('DB_PASSWORD', 'wp9Lk2!xQz7');", "wp9Lk2!xQz7"),
    ("pwd: Qz8!kLm2wX", "Qz8!kLm2wX"),
    ("contraseña: Perro2024!", "Perro2024!"),
    # prose, English and Spanish
    ("the wifi password for the office is Tr0ub4dor&3x-Ab12", "Tr0ub4dor&3x-Ab12"),
    ("The admin password is now Vx7#kq2Lm9, I changed it this morning", "Vx7#kq2Lm9"),
    ("password for the staging db: Kp4!rTz8wq", "Kp4!rTz8wq"),
    ("I reset the router password to Gh5$nm2Qx yesterday", "Gh5$nm2Qx"),
    ("the passphrase is correct-horse-battery-42", "correct-horse-battery-42"),
    ("passphrase Wm3-blue-Otter-88 for the backup disk", "Wm3-blue-Otter-88"),
    ('the VPN password is "gatonegro" (lower case)', "gatonegro"),
    ("el password de la base de datos es Xk9#mPq2!vL", "Xk9#mPq2!vL"),
    ("la contraseña del router es Gato_Negro_77", "Gato_Negro_77"),
    ("la contraseña de la wifi de invitados es Invitad0s#2026", "Invitad0s#2026"),
    ("la clave del servidor de correo es Crr3o!2026x", "Crr3o!2026x"),
    ("mi contraseña ahora es Mad#r1d2026", "Mad#r1d2026"),
    ("the pwd for the NAS is Nas!9832qk", "Nas!9832qk"),
    ("the password for root is hunter2", "hunter2"),
    ("password for ana@corp.com is Sp3ci4l!Pass", "Sp3ci4l!Pass"),
    ("login admin password Adm1n#2026", "Adm1n#2026"),
    ("The password is Password1 which is why it got cracked", "Password1"),
    ("user: admin / pass: Adm1n#2026", "Adm1n#2026"),
    # a known miss: a weak password with no verb before it reads like prose
    ("el usuario es admin y la contraseña admin123", "admin123"),
    # command lines
    ("mysql -uroot -pS3cr3tPw shop < dump.sql", "S3cr3tPw"),
    ("mysqldump -u backup -p'Bk!9x2Lq' --all-databases", "Bk!9x2Lq"),
    ("mysql --password=My5qlPw! -h db", "My5qlPw!"),
    ("sshpass -p 'Zx9!qwe12' ssh deploy@10.0.0.5", "Zx9!qwe12"),
    ("sshpass -pRk8pass22 scp a.txt host:", "Rk8pass22"),
    ("curl -u admin:Hx72kQ!p https://api.internal/v1", "Hx72kQ!p"),
    ("curl --user ci:Lm9x2Qpz7 -X POST https://jenkins/job/build", "Lm9x2Qpz7"),
    ("htpasswd -b /etc/nginx/.htpasswd ana Lm3!xQ9zz", "Lm3!xQ9zz"),
    ("htpasswd -nbB admin Adm1n!Pw", "Adm1n!Pw"),
    ("docker login -u ana -p Kq8vT2mZ9x registry.example.com", "Kq8vT2mZ9x"),
    ("podman login --password Pd!m9xq2 quay.io", "Pd!m9xq2"),
    ("redis-cli -a R3d1sPw9x -h cache", "R3d1sPw9x"),
    ("mongosh -u admin -p Mg0Pass!x --authenticationDatabase admin", "Mg0Pass!x"),
    ("sqlcmd -S db -U sa -P 'Sq1!Passw0rd'", "Sq1!Passw0rd"),
    ("ldapsearch -x -D cn=admin,dc=corp -w Ld4pPw!x -b dc=corp", "Ld4pPw!x"),
    ("openssl pkcs12 -export -passout pass:Pk12Pass9 -out a.p12", "Pk12Pass9"),
    ("keytool -list -keystore ks.jks -storepass Ks7!pass22", "Ks7!pass22"),
    ("zip -P Z1pPass!x out.zip notes.txt", "Z1pPass!x"),
    ("sqlplus scott/Tiger123@orcl", "Tiger123"),
    ("smbclient //srv/share -U ana%Smb4Pass!", "Smb4Pass!"),
    ("gpg --batch --passphrase 'Gp9!Phrase' --symmetric notes.txt", "Gp9!Phrase"),
    ("wget --password Wg3tPass! ftp://files.corp/dump.gz", "Wg3tPass!"),
    ("az login -u ana@corp.example -p Az9!Passw0rd", "Az9!Passw0rd"),
    # near a secret word
    ("the staging api key is 0e812e92776e2051ccb9b2baee4458ed, do not share", "0e812e92776e2051ccb9b2baee4458ed"),
]  # fmt: skip

_SHA1 = _pick(_HEXDIGITS, 40)
_SHA256 = _pick(_HEXDIGITS, 64)
_PNG = base64.b64encode(bytes(range(200))).decode()

# Harmless text that resembles a credential.
LOOKALIKES: list[str] = [
    # placeholders and references
    "password=${DB_PASSWORD}",
    "export PGPASSWORD=$PGPASSWORD",
    "psql needs $PGPASSWORD set first",
    "password: <redacted>",
    "password: <your password>",
    'api_key = "your-api-key-here"',
    "OPENAI_API_KEY=sk-...",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    'password = os.environ["DB_PASSWORD"]',
    "api_key = os.getenv('OPENAI_API_KEY')",
    "secret: !vault |",
    "DB_PASSWORD=changeme",
    "password: ********",
    "postgres://user:password@localhost:5432/db",
    "mysql://root:<password>@localhost/shop",
    "redis://:${REDIS_PASSWORD}@cache:6379",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "ghp_1234567890abcdefghijklmnopqrstuvwxyz is the token format",
    'curl -u "$USER:$TOKEN" https://api.internal',
    "mysql -uroot -p$MYSQL_ROOT_PASSWORD",
    "docker login -u ana --password-stdin < token.txt",
    # documented examples
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "the docs use AKIAI44QH8DHBEXAMPLE as the key id",
    "stripe docs: sk" + "_test_4eC39HqLyjWDarjtT1zdp7dc",
    "jwt.io sample: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6"
    "IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    # hashes, ids and encodings
    f"fixed in commit {_SHA1} (see the token refresh PR)",
    "cherry-pick 84130ee and 9f86d08 onto main",
    f"image: python@sha256:{_SHA256}",
    f"the password hash is {_pick(_HEXDIGITS, 32)} (md5, legacy)",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "session uuid 0b6d3c1e-5f2a-4c8e-9a71-3e2f1d0c9b8a expired",
    f"logo: data:image/png;base64,{_PNG}",
    "base64 of 'hello world' is aGVsbG8gd29ybGQ=",
    "the secret sauce is base64: VGhpcyBpcyBqdXN0IGEgdGVzdA==",
    "bcrypt hashes look like $2b$12$abcdefghijklmnopqrstuv",
    "released v2.14.0-rc.1+build.20240611",
    '"leaf_id": "L-software.java-0001-84130ee123"',
    # policy and advice
    "the password policy requires 12 characters",
    "reset your password at /account",
    "set the password in Vault, never in the repo",
    "Password: make sure it has at least 12 characters",
    "the password was reset-by-admin and is 12 characters long",
    "the password is stored in 1Password under Infra",
    "passwords are rotated every 90 days",
    "la contraseña del wifi la tiene Ana",
    "la contraseña debe tener al menos 12 caracteres",
    "la clave es entender el problema antes de tocar el código",
    "el password lo guarda Marta en el gestor",
    "I changed my password yesterday and the token expired",
    "password length is 16, password hash is argon2id",
    "the passphrase prompt appears twice on boot",
    "password hashing uses bcrypt with cost 12",
    # flags that are not passwords
    "ssh -p 2222 deploy@bastion",
    "psql -p 5432 -h db -U app",
    "mysql -p",
    "mysql -u root -p shop",
    "the -p flag sets the port",
    "docker run -p 8080:80 nginx",
    "redis-cli -h cache -p 6379 ping",
    "curl -u admin: https://api.internal (prompts for the password)",
    "sqlplus / as sysdba",
    "zip -r out.zip notes/",
    "use --password carefully, it ends up in shell history",
    "htpasswd -c /etc/nginx/.htpasswd ana",
    "mongosh -u admin -p --authenticationDatabase admin",
    "ssh-keygen -t ed25519 -C ana@example.org",
    # code that names secrets
    "token = get_token(session)",
    "password = self.password",
    "password: hashPassword(input, 10)",
    "const handler = { token: accessToken, password: password }",
    "max_tokens = 100000\nnum_tokens: 4096",
    "password_min_length = 12",
    'label = "Enter your password"',
    "if password == confirm_password:",
    "the key insight: getAccessTokenFromRefreshToken handles the retry",
    "PWD=/home/ana/projects/ihmt",
    "sk-learn-compatible-estimator-wrapper is a package name",
    "task-management-framework-for-everyone",
    "Supercalifragilisticexpialidocious is a long word",
    "docs at https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe",
    "http://localhost:8080?next=/login@home",
    # written after the detector, kept whatever the result
    "the password is correct, you just typed the user wrong",
    "Password is required for this endpoint (HTTP 401)",
    'The password is: see the team vault entry "db-prod"',
    "his password was 8 characters, so we forced a reset",
    "la contraseña es incorrecta, prueba otra vez",
    "la contraseña es la misma que la del año pasado",
    "password: ${{ secrets.DB_PASSWORD }}",
    "passwords must match: password == password2",
    "the pwd command prints /home/ana",
    "curl -U proxyuser:$PROXY_PASS http://proxy.internal",
    "mysql -h db -P 3306 -u app -p app_db",
    'git commit -m "fix: password reset flow (#482)"',
    "the API key is in 1Password (item: Stripe-Live-2026)",
    "htpasswd -B -C 12 /etc/.htpasswd ana",
    "sshpass -f ~/.pw ssh host",
    "https://user@example.com:8443/path",
    "git@github.com:ana/repo.git",
    'export MYSQL_PWD="$(pass show db/root)"',
    "my password manager is KeePassXC2",
    "wifi: OfficeNet-5G, password on the sticker",
    "openssl enc -aes-256-cbc -pass env:BACKUP_PASS -in a -out b",
    "la clave primaria es user_id2 y la foránea es order_id2",
    "la palabra clave es Python3 en el buscador",
]


@dataclass(frozen=True)
class Score:
    """How the detector did on the corpus."""

    secrets: int
    found: int
    lookalikes: int
    flagged: int
    missed: list[str]
    false_alarms: list[str]

    @property
    def recall(self) -> float:
        return self.found / self.secrets

    @property
    def false_positive_rate(self) -> float:
        return self.flagged / self.lookalikes


def _covered(text: str, value: str) -> bool:
    start = text.index(value)
    end = start + len(value)
    return any(f.start <= start and end <= f.end for f in find_secrets(text))


def measure() -> Score:
    """Recall over ``SECRETS`` (a finding must cover the whole value) and false positives over
    ``LOOKALIKES`` (any finding counts)."""
    missed = [text for text, value in SECRETS if not _covered(text, value)]
    false_alarms = [text for text in LOOKALIKES if find_secrets(text)]
    return Score(
        len(SECRETS),
        len(SECRETS) - len(missed),
        len(LOOKALIKES),
        len(false_alarms),
        missed,
        false_alarms,
    )
