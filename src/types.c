/* The element and result types: names, C++ spellings in the kernels, sizes. */
#include "internal.h"

static const struct cr_type_info types[CURED_TYPE_COUNT] = {
    [CURED_TYPE_INT32] = {"int32", "int", 4, CR_SIGNED},
    [CURED_TYPE_INT64] = {"int64", "long long", 8, CR_SIGNED},
    [CURED_TYPE_INT8] = {"int8", "signed char", 1, CR_SIGNED},
    [CURED_TYPE_UINT8] = {"uint8", "unsigned char", 1, CR_UNSIGNED},
    [CURED_TYPE_INT16] = {"int16", "short", 2, CR_SIGNED},
    [CURED_TYPE_UINT16] = {"uint16", "unsigned short", 2, CR_UNSIGNED},
    [CURED_TYPE_UINT32] = {"uint32", "unsigned int", 4, CR_UNSIGNED},
    [CURED_TYPE_UINT64] = {"uint64", "unsigned long long", 8, CR_UNSIGNED},
    [CURED_TYPE_FLOAT16] = {"float16", "half_t", 2, CR_HALF},
    [CURED_TYPE_BFLOAT16] = {"bfloat16", "bf16_t", 2, CR_HALF},
    [CURED_TYPE_FLOAT32] = {"float32", "float", 4, CR_FLOAT},
    [CURED_TYPE_FLOAT64] = {"float64", "double", 8, CR_FLOAT},
};

const struct cr_type_info *cr_type(cured_type t)
{
    return (unsigned)t < CURED_TYPE_COUNT ? &types[t] : NULL;
}

size_t cr_type_size(cured_type t)
{
    return (unsigned)t < CURED_TYPE_COUNT ? types[t].size : 0;
}

const char *cr_type_name(cured_type t)
{
    return (unsigned)t < CURED_TYPE_COUNT ? types[t].name : "unknown";
}

const char *cr_type_cxx(cured_type t)
{
    return types[t].cxx;
}

CR_API const char *cured_type_name(cured_type type)
{
    return cr_type_name(type);
}

CR_API size_t cured_type_size(cured_type type)
{
    return cr_type_size(type);
}
