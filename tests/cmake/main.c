/* Built by tests/cmake/CMakeLists.txt against the installed cured: the
 * header and the library it finds are the same version, and a call works
 * without a GPU. */
#include <cured.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int api = cured_version(NULL, NULL, NULL);
    cured_type t = CURED_TYPE_INT32;
    if (api != CURED_API_VERSION || strcmp(cured_version_string(), CURED_VERSION_STRING) != 0 ||
        cured_default_result(CURED_OP_SUM, CURED_TYPE_INT32, &t) != CURED_SUCCESS || t != CURED_TYPE_INT64) {
        fprintf(stderr, "header %s (%d), library %s (%d)\n", CURED_VERSION_STRING, CURED_API_VERSION,
                cured_version_string(), api);
        return 1;
    }
    printf("cured %s through CMake: sum of int32 gives %s\n", cured_version_string(), cured_type_name(t));
    return 0;
}
