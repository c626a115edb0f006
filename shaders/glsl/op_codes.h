// Operation codes passed in push constants to the multi-op shaders (binary.comp, unary.comp,
// pool2d.comp, reduce.comp). Plain #defines so both GLSL and C++ (vgf/vulkan) include this file.
#ifndef VKRT_SHADER_OP_CODES_H
#define VKRT_SHADER_OP_CODES_H

// binary.comp / compare (TOSA semantics in tosa.md §9, §12)
#define BIN_ADD 0
#define BIN_SUB 1
#define BIN_MUL 2
#define BIN_MAXIMUM 3
#define BIN_MINIMUM 4
#define BIN_BITWISE_AND 5
#define BIN_BITWISE_OR 6
#define BIN_BITWISE_XOR 7
#define BIN_LOGICAL_AND 8
#define BIN_LOGICAL_OR 9
#define BIN_LOGICAL_XOR 10
#define BIN_ARITHMETIC_RIGHT_SHIFT 11
#define BIN_LOGICAL_LEFT_SHIFT 12
#define BIN_LOGICAL_RIGHT_SHIFT 13
#define BIN_INTDIV 14
#define BIN_POW 15
#define BIN_EQUAL 16
#define BIN_GREATER 17
#define BIN_GREATER_EQUAL 18

// unary.comp
#define UN_ABS 0
#define UN_BITWISE_NOT 1
#define UN_CLZ 2
#define UN_NEGATE 3
#define UN_CLAMP 4
#define UN_LOGICAL_NOT 5
#define UN_CEIL 6
#define UN_FLOOR 7
#define UN_EXP 8
#define UN_LOG 9
#define UN_SIN 10
#define UN_COS 11
#define UN_RECIPROCAL 12
#define UN_RSQRT 13
#define UN_SIGMOID 14
#define UN_TANH 15
#define UN_ERF 16
#define UN_IDENTITY 17

// pool2d.comp
#define POOL_MAX 0
#define POOL_AVG 1

// reduce.comp
#define RED_SUM 0
#define RED_MAX 1
#define RED_MIN 2
#define RED_PRODUCT 3
#define RED_ALL 4
#define RED_ANY 5

// nan_mode (TOSA numbering)
#define NAN_PROPAGATE 1
#define NAN_IGNORE 2

#endif
