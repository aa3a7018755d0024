/*
 * pinpad-shim: a PKCS#11 v2.40 module for TESTS that puts a real module (SoftHSM2) behind a
 * simulated reader: a PIN pad, and a card that reports its PIN's state. See README.md next to
 * this file.
 *
 *   PINPAD_SHIM_MODULE  the real module, loaded at the first C_GetFunctionList / C_Initialize
 *   PINPAD_SHIM_KEYPAD  optional: a file that plays the person at the pad; without it the reader
 *                       has no pad and C_Login is the real module's, logged
 *   PINPAD_SHIM_FLAGS   optional: a file holding a number (0x20000: CKF_USER_PIN_FINAL_TRY) that
 *                       C_GetTokenInfo ORs into the token's flags, read again at each call
 *   PINPAD_SHIM_LOG     optional: one line per C_Login and per C_Sign, never a PIN
 * (the three paths are read again at each C_Initialize)
 *
 * What differs from the real module:
 *   C_GetTokenInfo      with a keypad, CKF_PROTECTED_AUTHENTICATION_PATH is set (v2.40 §4.6
 *                       table 11); the flags file's bits are added (SoftHSM2 never locks a PIN:
 *                       it sets CKF_USER_PIN_COUNT_LOW, never FINAL_TRY or LOCKED)
 *   C_Login             without a keypad: forwarded and logged. With one: pPin must be NULL_PTR (v2.40 §5.6: "the PIN is entered on the reader's
 *                       PIN pad"); a non-NULL pPin is CKR_ARGUMENTS_BAD and never reaches the real
 *                       module. With NULL, the shim waits for the keypad file, then logs in with
 *                       the PIN in it, or returns CKR_FUNCTION_CANCELED once the session is closed
 *                       (C_CloseSession, C_CloseAllSessions of its slot, C_Finalize), from any
 *                       thread. A keypad holding "hold" is a reader that does not cancel: a
 *                       closed session's login keeps waiting until the keypad changes (then
 *                       CKR_FUNCTION_CANCELED); only C_Finalize ends it at once.
 *   C_Sign              forwarded and logged.
 * Everything else is the real module's own function pointer.
 *
 * The declarations below are written from the OASIS PKCS#11 v2.40 base specification (§3 types,
 * §5.2 CK_FUNCTION_LIST order) for the Linux/macOS ABI (natural packing, CK_ULONG = unsigned long).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- PKCS#11 v2.40 declarations (only what the shim needs) ---------------------------------- */

typedef unsigned char CK_BYTE;
typedef CK_BYTE CK_UTF8CHAR;
typedef unsigned long CK_ULONG;
typedef CK_ULONG CK_RV;
typedef CK_ULONG CK_FLAGS;
typedef CK_ULONG CK_SLOT_ID;
typedef CK_ULONG CK_SESSION_HANDLE;
typedef CK_ULONG CK_USER_TYPE;
typedef CK_ULONG CK_STATE;

typedef struct { CK_BYTE major; CK_BYTE minor; } CK_VERSION;

typedef struct {
  CK_UTF8CHAR label[32];
  CK_UTF8CHAR manufacturerID[32];
  CK_UTF8CHAR model[16];
  CK_BYTE serialNumber[16];
  CK_FLAGS flags;
  CK_ULONG ulMaxSessionCount;
  CK_ULONG ulSessionCount;
  CK_ULONG ulMaxRwSessionCount;
  CK_ULONG ulRwSessionCount;
  CK_ULONG ulMaxPinLen;
  CK_ULONG ulMinPinLen;
  CK_ULONG ulTotalPublicMemory;
  CK_ULONG ulFreePublicMemory;
  CK_ULONG ulTotalPrivateMemory;
  CK_ULONG ulFreePrivateMemory;
  CK_VERSION hardwareVersion;
  CK_VERSION firmwareVersion;
  CK_UTF8CHAR utcTime[16];
} CK_TOKEN_INFO;

typedef struct {
  CK_SLOT_ID slotID;
  CK_STATE state;
  CK_FLAGS flags;
  CK_ULONG ulDeviceError;
} CK_SESSION_INFO;

#define CKR_OK 0x00UL
#define CKR_HOST_MEMORY 0x02UL
#define CKR_GENERAL_ERROR 0x05UL
#define CKR_FUNCTION_FAILED 0x06UL
#define CKR_ARGUMENTS_BAD 0x07UL
#define CKR_FUNCTION_CANCELED 0x50UL
#define CKR_CRYPTOKI_NOT_INITIALIZED 0x190UL
#define CKF_PROTECTED_AUTHENTICATION_PATH 0x100UL
#define MAX_FLAGS_TEXT 64

/* Functions the shim does not touch are copied as opaque pointers: only the layout matters. */
typedef void (*ck_opaque_fn)(void);
struct ck_function_list;
typedef struct ck_function_list CK_FUNCTION_LIST;

struct ck_function_list {
  CK_VERSION version;
  CK_RV (*C_Initialize)(void *pInitArgs);
  CK_RV (*C_Finalize)(void *pReserved);
  ck_opaque_fn C_GetInfo;
  CK_RV (*C_GetFunctionList)(CK_FUNCTION_LIST **ppFunctionList);
  ck_opaque_fn C_GetSlotList;
  ck_opaque_fn C_GetSlotInfo;
  CK_RV (*C_GetTokenInfo)(CK_SLOT_ID slotID, CK_TOKEN_INFO *pInfo);
  ck_opaque_fn C_GetMechanismList;
  ck_opaque_fn C_GetMechanismInfo;
  ck_opaque_fn C_InitToken;
  ck_opaque_fn C_InitPIN;
  ck_opaque_fn C_SetPIN;
  ck_opaque_fn C_OpenSession;
  CK_RV (*C_CloseSession)(CK_SESSION_HANDLE hSession);
  CK_RV (*C_CloseAllSessions)(CK_SLOT_ID slotID);
  CK_RV (*C_GetSessionInfo)(CK_SESSION_HANDLE hSession, CK_SESSION_INFO *pInfo);
  ck_opaque_fn C_GetOperationState;
  ck_opaque_fn C_SetOperationState;
  CK_RV (*C_Login)(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR *pPin, CK_ULONG ulPinLen);
  ck_opaque_fn C_Logout;
  ck_opaque_fn C_CreateObject;
  ck_opaque_fn C_CopyObject;
  ck_opaque_fn C_DestroyObject;
  ck_opaque_fn C_GetObjectSize;
  ck_opaque_fn C_GetAttributeValue;
  ck_opaque_fn C_SetAttributeValue;
  ck_opaque_fn C_FindObjectsInit;
  ck_opaque_fn C_FindObjects;
  ck_opaque_fn C_FindObjectsFinal;
  ck_opaque_fn C_EncryptInit;
  ck_opaque_fn C_Encrypt;
  ck_opaque_fn C_EncryptUpdate;
  ck_opaque_fn C_EncryptFinal;
  ck_opaque_fn C_DecryptInit;
  ck_opaque_fn C_Decrypt;
  ck_opaque_fn C_DecryptUpdate;
  ck_opaque_fn C_DecryptFinal;
  ck_opaque_fn C_DigestInit;
  ck_opaque_fn C_Digest;
  ck_opaque_fn C_DigestUpdate;
  ck_opaque_fn C_DigestKey;
  ck_opaque_fn C_DigestFinal;
  ck_opaque_fn C_SignInit;
  CK_RV (*C_Sign)(CK_SESSION_HANDLE hSession, CK_BYTE *pData, CK_ULONG ulDataLen, CK_BYTE *pSignature, CK_ULONG *pulSignatureLen);
  ck_opaque_fn C_SignUpdate;
  ck_opaque_fn C_SignFinal;
  ck_opaque_fn C_SignRecoverInit;
  ck_opaque_fn C_SignRecover;
  ck_opaque_fn C_VerifyInit;
  ck_opaque_fn C_Verify;
  ck_opaque_fn C_VerifyUpdate;
  ck_opaque_fn C_VerifyFinal;
  ck_opaque_fn C_VerifyRecoverInit;
  ck_opaque_fn C_VerifyRecover;
  ck_opaque_fn C_DigestEncryptUpdate;
  ck_opaque_fn C_DecryptDigestUpdate;
  ck_opaque_fn C_SignEncryptUpdate;
  ck_opaque_fn C_DecryptVerifyUpdate;
  ck_opaque_fn C_GenerateKey;
  ck_opaque_fn C_GenerateKeyPair;
  ck_opaque_fn C_WrapKey;
  ck_opaque_fn C_UnwrapKey;
  ck_opaque_fn C_DeriveKey;
  ck_opaque_fn C_SeedRandom;
  ck_opaque_fn C_GenerateRandom;
  ck_opaque_fn C_GetFunctionStatus;
  ck_opaque_fn C_CancelFunction;
  ck_opaque_fn C_WaitForSlotEvent;
};

/* v2.40 lists 68 functions; a slip in the list above would shift every pointer after it. */
_Static_assert(offsetof(CK_FUNCTION_LIST, C_WaitForSlotEvent) - offsetof(CK_FUNCTION_LIST, C_Initialize) == 67 * sizeof(void *),
               "CK_FUNCTION_LIST must hold the 68 functions of PKCS#11 v2.40");
_Static_assert(offsetof(CK_FUNCTION_LIST, C_Login) - offsetof(CK_FUNCTION_LIST, C_Initialize) == 18 * sizeof(void *), "C_Login is function 18");
_Static_assert(offsetof(CK_FUNCTION_LIST, C_Sign) - offsetof(CK_FUNCTION_LIST, C_Initialize) == 43 * sizeof(void *), "C_Sign is function 43");
_Static_assert(offsetof(CK_TOKEN_INFO, flags) == 96, "CK_TOKEN_INFO.flags follows 96 bytes of text");

/* ---- state ----------------------------------------------------------------------------------- */

#define POLL_MS 20
#define MAX_PIN 256

/* How a waiting login was cancelled: its session closed (a "hold" reader ignores it), or C_Finalize. */
#define CANCEL_SESSION 1
#define CANCEL_FINALIZE 2

/* One C_Login waiting at the pad; lives on the waiting thread's stack, linked while it waits. */
struct waiter {
  CK_SESSION_HANDLE session;
  CK_SLOT_ID slot;
  int cancelled; /* 0, CANCEL_SESSION or CANCEL_FINALIZE */
  struct waiter *next;
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *real_handle;                 /* never dlclose'd: handed-out pointers stay valid */
static CK_FUNCTION_LIST *real;            /* the real module's list */
static CK_FUNCTION_LIST shim_list;        /* the list we hand out */

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_changed;      /* CLOCK_MONOTONIC; set up once by init_cond */
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static struct waiter *waiters;
static unsigned long waiting;             /* how many C_Login calls are inside the wait loop */
static char *keypad_path;                 /* the three read at C_Initialize; guarded by state_lock */
static char *log_path;
static char *flags_path;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static CK_RV shim_C_Initialize(void *);
static CK_RV shim_C_Finalize(void *);
static CK_RV shim_C_GetTokenInfo(CK_SLOT_ID, CK_TOKEN_INFO *);
static CK_RV shim_C_CloseSession(CK_SESSION_HANDLE);
static CK_RV shim_C_CloseAllSessions(CK_SLOT_ID);
static CK_RV shim_C_Login(CK_SESSION_HANDLE, CK_USER_TYPE, CK_UTF8CHAR *, CK_ULONG);
static CK_RV shim_C_Sign(CK_SESSION_HANDLE, CK_BYTE *, CK_ULONG, CK_BYTE *, CK_ULONG *);
CK_RV C_GetFunctionList(CK_FUNCTION_LIST **ppFunctionList);

static void init_cond(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&state_changed, &attr);
  pthread_condattr_destroy(&attr);
}

static char *env_copy(const char *name) {
  const char *value = getenv(name);
  return value && *value ? strdup(value) : NULL;
}

/* Appends one line to PINPAD_SHIM_LOG. Callers pass only user types and return codes. */
static void log_line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *format, ...) {
  char path[4096];
  pthread_mutex_lock(&state_lock);
  int have = log_path != NULL && strlen(log_path) < sizeof path;
  if (have) strcpy(path, log_path);
  pthread_mutex_unlock(&state_lock);
  if (!have) return;

  char line[256];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line, sizeof line - 1, format, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)(sizeof line - 2);
  line[n++] = '\n';

  pthread_mutex_lock(&log_lock);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ssize_t ignored = write(fd, line, (size_t)n);
    (void)ignored;
    close(fd);
  }
  pthread_mutex_unlock(&log_lock);
}

/* Loads the real module once and builds shim_list from its list. */
static CK_RV ensure_loaded(void) {
  CK_RV rv = CKR_OK;
  pthread_mutex_lock(&load_lock);
  if (real == NULL) {
    const char *path = getenv("PINPAD_SHIM_MODULE");
    if (path == NULL || *path == '\0') {
      fprintf(stderr, "pinpad-shim: PINPAD_SHIM_MODULE is not set\n");
      rv = CKR_FUNCTION_FAILED;
    } else if ((real_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
      fprintf(stderr, "pinpad-shim: cannot load %s: %s\n", path, dlerror());
      rv = CKR_FUNCTION_FAILED;
    } else {
      CK_RV (*get_list)(CK_FUNCTION_LIST **) = NULL;
      void *symbol = dlsym(real_handle, "C_GetFunctionList");
      memcpy(&get_list, &symbol, sizeof get_list); /* POSIX: data and function pointers share a form */
      CK_FUNCTION_LIST *list = NULL;
      if (get_list == NULL || get_list(&list) != CKR_OK || list == NULL) {
        fprintf(stderr, "pinpad-shim: %s has no usable C_GetFunctionList\n", path);
        rv = CKR_FUNCTION_FAILED;
      } else {
        memcpy(&shim_list, list, sizeof shim_list);
        shim_list.version.major = 2;
        shim_list.version.minor = 40;
        shim_list.C_Initialize = shim_C_Initialize;
        shim_list.C_Finalize = shim_C_Finalize;
        shim_list.C_GetFunctionList = C_GetFunctionList;
        shim_list.C_GetTokenInfo = shim_C_GetTokenInfo;
        shim_list.C_CloseSession = shim_C_CloseSession;
        shim_list.C_CloseAllSessions = shim_C_CloseAllSessions;
        shim_list.C_Login = shim_C_Login;
        shim_list.C_Sign = shim_C_Sign;
        real = list;
      }
    }
  }
  pthread_mutex_unlock(&load_lock);
  return rv;
}

/* Marks matching waiters cancelled (`level`) and wakes them. Call with state_lock held. */
static void cancel_where(int (*match)(const struct waiter *, CK_ULONG), CK_ULONG value, int level) {
  int any = 0;
  for (struct waiter *w = waiters; w != NULL; w = w->next) {
    if (w->cancelled < level && match(w, value)) {
      w->cancelled = level;
      any = 1;
    }
  }
  if (any) pthread_cond_broadcast(&state_changed);
}

static int by_session(const struct waiter *w, CK_ULONG session) { return w->session == session; }
static int by_slot(const struct waiter *w, CK_ULONG slot) { return w->slot == slot; }
static int every(const struct waiter *w, CK_ULONG unused) { (void)w; (void)unused; return 1; }

/*
 * Reads what the person typed: 1 with the PIN in `pin` (trailing CR/LF removed), 0 while the file
 * is missing, empty or holds exactly "never", 2 while it holds exactly "hold" (a reader that does
 * not cancel its wait when the session closes).
 */
static int read_keypad(const char *path, char *pin, size_t size, size_t *length) {
  if (path == NULL) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t total = 0;
  for (;;) {
    ssize_t n = read(fd, pin + total, size - 1 - total);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += (size_t)n;
    if (total == size - 1) break;
  }
  close(fd);
  while (total > 0 && (pin[total - 1] == '\n' || pin[total - 1] == '\r')) total--;
  pin[total] = '\0';
  if (total == 0 || strcmp(pin, "never") == 0 || strcmp(pin, "hold") == 0) {
    int hold = strcmp(pin, "hold") == 0;
    explicit_bzero(pin, size);
    return hold ? 2 : 0;
  }
  *length = total;
  return 1;
}

/* ---- the functions we replace ---------------------------------------------------------------- */

static CK_RV shim_C_Initialize(void *pInitArgs) {
  CK_RV rv = ensure_loaded();
  if (rv != CKR_OK) return rv;
  pthread_once(&cond_once, init_cond);
  pthread_mutex_lock(&state_lock);
  free(keypad_path);
  free(log_path);
  free(flags_path);
  keypad_path = env_copy("PINPAD_SHIM_KEYPAD");
  log_path = env_copy("PINPAD_SHIM_LOG");
  flags_path = env_copy("PINPAD_SHIM_FLAGS");
  pthread_mutex_unlock(&state_lock);
  return real->C_Initialize(pInitArgs);
}

static CK_RV shim_C_Finalize(void *pReserved) {
  if (real == NULL) return CKR_CRYPTOKI_NOT_INITIALIZED;
  pthread_once(&cond_once, init_cond);
  /* Every waiting login ends before the real module goes away under it. */
  pthread_mutex_lock(&state_lock);
  while (waiting > 0) {
    cancel_where(every, 0, CANCEL_FINALIZE); /* again each time: a login may have started waiting meanwhile */
    pthread_cond_wait(&state_changed, &state_lock);
  }
  pthread_mutex_unlock(&state_lock);
  return real->C_Finalize(pReserved);
}

/* The number in the flags file (strtoul base 0: "0x20000" or "131072"), 0 without one. */
static CK_FLAGS read_extra_flags(void) {
  char path[4096];
  pthread_mutex_lock(&state_lock);
  int have = flags_path != NULL && strlen(flags_path) < sizeof path;
  if (have) strcpy(path, flags_path);
  pthread_mutex_unlock(&state_lock);
  if (!have) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[MAX_FLAGS_TEXT];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  return (CK_FLAGS)strtoul(text, NULL, 0);
}

static int has_keypad(void) {
  pthread_mutex_lock(&state_lock);
  int have = keypad_path != NULL;
  pthread_mutex_unlock(&state_lock);
  return have;
}

static CK_RV shim_C_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO *pInfo) {
  CK_RV rv = real->C_GetTokenInfo(slotID, pInfo);
  if (rv == CKR_OK && pInfo != NULL) {
    if (has_keypad()) pInfo->flags |= CKF_PROTECTED_AUTHENTICATION_PATH;
    pInfo->flags |= read_extra_flags();
  }
  return rv;
}

static CK_RV shim_C_CloseSession(CK_SESSION_HANDLE hSession) {
  pthread_once(&cond_once, init_cond);
  pthread_mutex_lock(&state_lock);
  cancel_where(by_session, hSession, CANCEL_SESSION);
  pthread_mutex_unlock(&state_lock);
  return real->C_CloseSession(hSession);
}

static CK_RV shim_C_CloseAllSessions(CK_SLOT_ID slotID) {
  pthread_once(&cond_once, init_cond);
  pthread_mutex_lock(&state_lock);
  cancel_where(by_slot, slotID, CANCEL_SESSION);
  pthread_mutex_unlock(&state_lock);
  return real->C_CloseAllSessions(slotID);
}

static CK_RV shim_C_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR *pPin, CK_ULONG ulPinLen) {
  pthread_once(&cond_once, init_cond);
  if (!has_keypad()) {
    /* No pad on this reader: the host's PIN goes to the card as it came. */
    CK_RV forwarded = real->C_Login(hSession, userType, pPin, ulPinLen);
    log_line("C_Login user=%lu pin=HOST rv=0x%lx", userType, forwarded);
    return forwarded;
  }
  if (pPin != NULL) {
    /* A reader with a PIN pad takes the PIN from its keys, never from the host. */
    log_line("C_Login user=%lu pin=NON-NULL rv=0x%lx", userType, CKR_ARGUMENTS_BAD);
    return CKR_ARGUMENTS_BAD;
  }
  log_line("C_Login user=%lu pin=NULL", userType);

  CK_SESSION_INFO info;
  CK_RV rv = real->C_GetSessionInfo(hSession, &info);
  if (rv != CKR_OK) {
    log_line("pad user=%lu rv=0x%lx", userType, rv);
    return rv;
  }

  struct waiter self = { .session = hSession, .slot = info.slotID, .cancelled = 0, .next = NULL };
  char pin[MAX_PIN];
  size_t length = 0;
  int typed = 0;

  pthread_mutex_lock(&state_lock);
  self.next = waiters;
  waiters = &self;
  waiting++;
  while (self.cancelled != CANCEL_FINALIZE) {
    char path[4096];
    int have = keypad_path != NULL && strlen(keypad_path) < sizeof path;
    if (have) strcpy(path, keypad_path);
    pthread_mutex_unlock(&state_lock);
    int state = have ? read_keypad(path, pin, sizeof pin, &length) : 0;
    typed = state == 1;
    pthread_mutex_lock(&state_lock);
    if (typed || (self.cancelled && state != 2)) break;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += POLL_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&state_changed, &state_lock, &until);
  }
  int cancelled = self.cancelled;
  for (struct waiter **link = &waiters; *link != NULL; link = &(*link)->next) {
    if (*link == &self) {
      *link = self.next;
      break;
    }
  }
  waiting--;
  pthread_cond_broadcast(&state_changed); /* C_Finalize may be waiting for `waiting` to reach 0 */
  pthread_mutex_unlock(&state_lock);

  if (cancelled) {
    if (typed) explicit_bzero(pin, sizeof pin);
    rv = CKR_FUNCTION_CANCELED;
  } else {
    rv = real->C_Login(hSession, userType, (CK_UTF8CHAR *)pin, (CK_ULONG)length);
    explicit_bzero(pin, sizeof pin);
  }
  log_line("pad user=%lu rv=0x%lx", userType, rv);
  return rv;
}

static CK_RV shim_C_Sign(CK_SESSION_HANDLE hSession, CK_BYTE *pData, CK_ULONG ulDataLen, CK_BYTE *pSignature, CK_ULONG *pulSignatureLen) {
  CK_RV rv = real->C_Sign(hSession, pData, ulDataLen, pSignature, pulSignatureLen);
  /* A call with pSignature NULL only asks for the length (v2.40 §5.2): marked so tests can tell. */
  if (pSignature == NULL) log_line("C_Sign rv=0x%lx length-only", rv);
  else log_line("C_Sign rv=0x%lx", rv);
  return rv;
}

/* ---- the one export -------------------------------------------------------------------------- */

__attribute__((visibility("default"))) CK_RV C_GetFunctionList(CK_FUNCTION_LIST **ppFunctionList) {
  if (ppFunctionList == NULL) return CKR_ARGUMENTS_BAD;
  CK_RV rv = ensure_loaded();
  if (rv != CKR_OK) return rv;
  *ppFunctionList = &shim_list;
  return CKR_OK;
}
