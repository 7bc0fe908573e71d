/* The CPU reference of every lab: what the tests check the GPU code against. */
#ifndef GPULABS_REFERENCE_H
#define GPULABS_REFERENCE_H

#include "gpulabs/reference/reduction.h"
#include "gpulabs/reference/scan.h"
#include "gpulabs/reference/compaction.h"
#include "gpulabs/reference/radix_sort.h"
#include "gpulabs/reference/bitonic_sort.h"
#include "gpulabs/reference/ode.h"

#endif
