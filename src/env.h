/*
 * The environment as the library reads it. A privileged process (the kernel
 * set AT_SECURE: setuid, setgid or file capabilities) reads no variable at
 * all, as secure_getenv(3) would: its environment comes from a less
 * privileged user. Compiled into the library and the tools (driver.c uses it).
 */
#ifndef CURED_ENV_H
#define CURED_ENV_H

/* getenv(name), or NULL in a privileged process. */
const char *cr_getenv(const char *name);
/* 1 in a privileged process (AT_SECURE, or forced by a test), else 0. */
int cr_env_privileged(void);
/* Tests: 1 or 0 pretends the process is or is not privileged; -1 asks the kernel again. */
void cr_env_force_secure(int secure);

#endif
