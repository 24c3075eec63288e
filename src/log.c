/* Logging: silent unless CURED_LOG or cured_set_log() asks for messages. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int configured;
static cured_log_level max_level;
static cured_log_fn sink;
static void *sink_user;
static unsigned long warned[64]; /* hashes of warnings already reported */
static size_t nwarned;

static void configure_from_env(void)
{
    const char *env = cr_getenv("CURED_LOG");
    max_level = CURED_LOG_OFF;
    if (env && strcmp(env, "warn") == 0)
        max_level = CURED_LOG_WARN;
    else if (env && strcmp(env, "debug") == 0)
        max_level = CURED_LOG_DEBUG;
    configured = 1;
}

static unsigned long hash(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

void cr_log(cured_log_level level, const char *fmt, ...)
{
    char msg[1024];
    pthread_mutex_lock(&lock);
    if (!configured)
        configure_from_env();
    if (level > max_level || level == CURED_LOG_OFF) {
        pthread_mutex_unlock(&lock);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (level == CURED_LOG_WARN) {
        unsigned long h = hash(msg);
        for (size_t i = 0; i < nwarned && i < 64; i++)
            if (warned[i] == h) {
                pthread_mutex_unlock(&lock);
                return;
            }
        warned[nwarned++ % 64] = h;
    }
    cured_log_fn fn = sink;
    void *user = sink_user;
    pthread_mutex_unlock(&lock);
    if (fn)
        fn(level, msg, user);
    else
        fprintf(stderr, "cured: %s: %s\n", level == CURED_LOG_WARN ? "warning" : "debug", msg);
}

CR_API cured_status cured_set_log(cured_log_level level, cured_log_fn fn, void *user)
{
    if (fn != NULL && (unsigned)level > CURED_LOG_DEBUG) /* without fn the level is ignored */
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown log level %d", (int)level);
    pthread_mutex_lock(&lock);
    if (fn == NULL) {
        configure_from_env();
    } else {
        max_level = level;
        configured = 1;
    }
    sink = fn;
    sink_user = user;
    pthread_mutex_unlock(&lock);
    return CURED_SUCCESS;
}
