/*
 * Where the disk cache lives, and whether its directory can be trusted.
 *
 * The root comes from cured_set_cache_dir(), else (unless the process is
 * privileged) CURED_CACHE_DIR, $XDG_CACHE_HOME/cured, $HOME/.cache/cured or
 * the passwd entry's home. The root must be a directory of the effective
 * user, not writable by group or others, not a symlink, and neither the
 * file-system root nor a shared system directory. A missing directory on the
 * way is created (0700) only inside a directory of the effective user (or a
 * sticky one, such as /tmp): root running with another user's HOME must not
 * leave root-owned directories in that user's home.
 */
#include "internal.h"
#include "diskcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories no cache may take over, even one of root's own. */
static const char *const shared_dirs[] = {
    "/",         "/bin",    "/boot", "/dev",     "/dev/shm", "/etc",       "/home",     "/lib",
    "/lib64",    "/media",  "/mnt",  "/opt",     "/proc",    "/root",      "/run",      "/sbin",
    "/srv",      "/sys",    "/tmp",  "/usr",     "/usr/bin", "/usr/lib",   "/usr/local", "/usr/share",
    "/var",      "/var/cache", "/var/lib", "/var/tmp"};

static int is_shared(const struct stat *st, const char **which)
{
    for (size_t i = 0; i < sizeof shared_dirs / sizeof *shared_dirs; i++) {
        struct stat s;
        if (stat(shared_dirs[i], &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) {
            *which = shared_dirs[i];
            return 1;
        }
    }
    return 0;
}

/* Why name (in at) is not a private directory, into why; after a failed open. */
static void explain(int at, const char *name, int err, char *why, size_t cap)
{
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        snprintf(why, cap, "%s: %s", name, strerror(errno));
    else if (S_ISLNK(st.st_mode))
        snprintf(why, cap, "%s is a symbolic link (not followed)", name);
    else if (!S_ISDIR(st.st_mode))
        snprintf(why, cap, "%s is not a directory", name);
    else
        snprintf(why, cap, "%s: %s", name, strerror(err));
}

int cr_cachedir_private(int at, const char *name, int create, char *why, size_t cap)
{
    if (create && mkdirat(at, name, 0700) != 0 && errno != EEXIST) {
        snprintf(why, cap, "cannot create %s: %s", name, strerror(errno));
        return -1;
    }
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        explain(at, name, errno, why, cap);
        return -1;
    }
    struct stat st;
    const char *shared = NULL;
    if (fstat(fd, &st) != 0)
        snprintf(why, cap, "%s: %s", name, strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(why, cap, "%s is not owned by this user (owner uid %ld, this user %ld)", name, (long)st.st_uid,
                 (long)geteuid());
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, cap, "%s is writable by group or others (mode %04o)", name, (unsigned)(st.st_mode & 07777));
    else if (is_shared(&st, &shared))
        snprintf(why, cap, "%s is %s, a shared system directory", name, shared);
    else
        return fd;
    close(fd);
    return -1;
}

/* Create name in the directory fd (path so far: at) if missing, when that directory is ours or sticky. */
static int make_missing(int fd, const char *at, const char *name, char *why, size_t cap)
{
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
        return 0; /* exists (or is unreadable: the open says why) */
    if (fstat(fd, &st) != 0)
        return snprintf(why, cap, "%s: %s", at, strerror(errno)), -1;
    if (st.st_uid != geteuid() && !(st.st_mode & S_ISVTX)) {
        snprintf(why, cap, "%s is missing and is not created in %s, which belongs to uid %ld, not to this user "
                 "(uid %ld)", name, at, (long)st.st_uid, (long)geteuid());
        return -1;
    }
    if (mkdirat(fd, name, 0700) != 0 && errno != EEXIST)
        return snprintf(why, cap, "cannot create %s in %s: %s", name, at, strerror(errno)), -1;
    return 0;
}

/* Open the cache root path (creating what is missing, as above); -1 with why set. */
static int open_root(const char *path, char *why, size_t cap)
{
    char buf[1024], at[1024];
    snprintf(buf, sizeof buf, "%s", path);
    snprintf(at, sizeof at, "%s", buf[0] == '/' ? "/" : ".");
    int fd = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return snprintf(why, cap, "%s: %s", at, strerror(errno)), -1;
    char *save = NULL;
    int parts = 0;
    for (char *part = strtok_r(buf, "/", &save); part && fd >= 0; part = strtok_r(NULL, "/", &save)) {
        const char *rest = save;
        while (rest && *rest == '/')
            rest++; /* "a//" or "a/": a is still the last component */
        int last = rest == NULL || *rest == '\0', next = -1;
        parts++;
        if (make_missing(fd, at, part, why, cap) != 0)
            next = -1;
        else if (last) /* the cache root itself must be private */
            next = cr_cachedir_private(fd, part, 0, why, cap);
        else if ((next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            /* Parents (e.g. ~/.cache) may be anything the user has, symlinks included. */
            snprintf(why, cap, "%s/%s: %s", at, part, strerror(errno));
        size_t len = strlen(at);
        snprintf(at + len, sizeof at - len, "%s%s", len && at[len - 1] == '/' ? "" : "/", part);
        close(fd);
        fd = next;
    }
    if (fd >= 0 && parts == 0) { /* "/", "//": nothing but the file-system root */
        snprintf(why, cap, "the file-system root is not a cache directory");
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The root path, or 0 when there is none (off); *reason says why for the log. */
static int resolve_root(const char *explicit_dir, char *out, size_t cap, const char **reason)
{
    if (explicit_dir != NULL) {
        *reason = "disk cache disabled by cured_set_cache_dir(\"\")";
        return *explicit_dir ? (snprintf(out, cap, "%s", explicit_dir), 1) : 0;
    }
    if (cr_env_privileged()) {
        *reason = "disk cache off: the process is privileged (setuid, setgid or capabilities) and "
                  "cured_set_cache_dir() named no directory";
        return 0;
    }
    *reason = "disk cache disabled by the environment";
    const char *disable = cr_getenv("CURED_CACHE_DISABLE");
    if (disable && *disable && strcmp(disable, "0") != 0)
        return 0;
    const char *dir = cr_getenv("CURED_CACHE_DIR");
    if (dir != NULL)
        return *dir ? (snprintf(out, cap, "%s", dir), 1) : 0; /* set but empty: off */
    const char *xdg = cr_getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/')
        return snprintf(out, cap, "%s/cured", xdg), 1;
    const char *home = cr_getenv("HOME");
    if (home == NULL || *home != '/') {
        struct passwd pw, *res = NULL;
        char pwbuf[4096];
        *reason = "disk cache off: no HOME and no home directory for this user";
        if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof pwbuf, &res) == 0 && res && res->pw_dir)
            return snprintf(out, cap, "%s/.cache/cured", res->pw_dir), 1;
        return 0;
    }
    return snprintf(out, cap, "%s/.cache/cured", home), 1;
}

int cr_cachedir_open(const char *explicit_dir, const char *schema, int *root_fd, int *tmp_fd, char *path,
                     size_t cap)
{
    char root[900], why[1200] = "";
    const char *reason = NULL;
    int have_root = resolve_root(explicit_dir, root, sizeof root, &reason);
    if (have_root && strlen(root) >= sizeof root - 1) {
        cr_log(CURED_LOG_WARN, "disk cache path is too long; compiling without the disk cache");
        return 0;
    }
    if (!have_root) {
        cr_log(CURED_LOG_DEBUG, "%s", reason);
        return 0;
    }
    int top = open_root(root, why, sizeof why);
    *root_fd = top >= 0 ? cr_cachedir_private(top, schema, 1, why, sizeof why) : -1;
    *tmp_fd = *root_fd >= 0 ? cr_cachedir_private(*root_fd, "tmp", 1, why, sizeof why) : -1;
    if (top >= 0)
        close(top);
    if (*root_fd < 0 || *tmp_fd < 0) {
        cr_log(CURED_LOG_WARN, "disk cache %s unusable (%s); compiling without it", root, why);
        if (*root_fd >= 0)
            close(*root_fd);
        *root_fd = *tmp_fd = -1;
        return 0;
    }
    snprintf(path, cap, "%s/%s", root, schema);
    return 1;
}
