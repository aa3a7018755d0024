/**
 * PKCS#11 v2.40 constants we use (OASIS pkcs11t.h). Values are CK_ULONG; they all fit a JS number.
 */

// Object classes (CKO_*), §4.
export const CKO_CERTIFICATE = 0x1;
export const CKO_PUBLIC_KEY = 0x2;
export const CKO_PRIVATE_KEY = 0x3;

// Attributes (CKA_*), §4.
export const CKA_CLASS = 0x0;
export const CKA_LABEL = 0x3;
export const CKA_VALUE = 0x11;
export const CKA_CERTIFICATE_TYPE = 0x80;
export const CKA_KEY_TYPE = 0x100;
export const CKA_ID = 0x102;
export const CKA_SIGN = 0x108;
/** The token wants C_Login(CKU_CONTEXT_SPECIFIC) after every C_SignInit with this key (v2.40 §4.9). */
export const CKA_ALWAYS_AUTHENTICATE = 0x202;
export const CKA_MODULUS = 0x120;
export const CKA_PUBLIC_EXPONENT = 0x122;
export const CKA_EC_PARAMS = 0x180;
export const CKA_EC_POINT = 0x181;

// Key types (CKK_*).
export const CKK_RSA = 0x0;
export const CKK_EC = 0x3;

// Certificate types (CKC_*).
export const CKC_X_509 = 0x0;

// Mechanisms (CKM_*): raw PKCS#1 v1.5 (we pass the DigestInfo ourselves) and raw ECDSA over a
// digest we computed, so one code path serves RSA, P-256 and secp256k1 keys (pkcs11-curr §2.1.6, §2.3.6).
export const CKM_RSA_PKCS = 0x1;
export const CKM_ECDSA = 0x1041;

// Flags and user types.
export const CKF_SERIAL_SESSION = 0x4; // must always be set (v2.40 §5.6 C_OpenSession)
export const CKF_OS_LOCKING_OK = 0x2; // CK_C_INITIALIZE_ARGS.flags: koffi's async calls run on worker threads
export const CKU_USER = 1;
/** v2.40 §5.6 C_Login: the PIN for the one operation just initialised (always-authenticate keys). */
export const CKU_CONTEXT_SPECIFIC = 2;
/** CK_TOKEN_INFO.flags: the reader takes the PIN itself (a PIN pad); C_Login gets a NULL PIN (v2.40 §5.6). */
export const CKF_PROTECTED_AUTHENTICATION_PATH = 0x100n;

/**
 * CK_TOKEN_INFO.flags about the user PIN (v2.40 §3.2, table 8): a wrong PIN was entered since the
 * last right one (COUNT_LOW), the next wrong one locks it (FINAL_TRY), it is locked (LOCKED).
 * Tokens without a retry counter report none of them.
 */
export const CKF_USER_PIN_COUNT_LOW = 0x10000n;
export const CKF_USER_PIN_FINAL_TRY = 0x20000n;
export const CKF_USER_PIN_LOCKED = 0x40000n;

/** CK_TOKEN_INFO.label: 32 bytes, blank padded, not NUL-terminated (v2.40 §3.2). */
export const TOKEN_LABEL_LENGTH = 32;
