// Output warping for the Gaussian process: objectives of tuning studies are
// often skewed (a few trials far better or far worse than the rest), which a
// stationary GP with Gaussian noise models poorly. As HEBO (Cowen-Rivers et
// al. 2022) and scikit-learn's PowerTransformer do, the standardised values
// are passed through the Yeo–Johnson transform
//
//   psi(z; l) = ((z + 1)^l - 1) / l                 z >= 0, l != 0
//               log(z + 1)                          z >= 0, l == 0
//               -((1 - z)^(2 - l) - 1) / (2 - l)    z <  0, l != 2
//               -log(1 - z)                         z <  0, l == 2
//
// with l in [0, 2] (symmetric around the identity l = 1, so a goal and its
// negation warp alike; at most a logarithm on the compressed side)
// maximising the Gaussian profile log-likelihood, then
// standardised again. The transform is increasing, so the best trial stays
// the best.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_POWER_TRANSFORM_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_POWER_TRANSFORM_H_

#include "Eigen/Core"

namespace trainpkg::sdk::hptune::internal {

double YeoJohnson(double z, double lambda);

// The l of `standardized` (mean 0, sd 1) that maximises
// -n/2 log var(psi(z; l)) + (l - 1) sum sign(z) log(|z| + 1).
double FitYeoJohnson(const Eigen::VectorXd& standardized);

// `values` standardised, Yeo–Johnson transformed with the fitted l, and
// standardised again (sd 0 counts as 1).
Eigen::VectorXd WarpOutputs(const Eigen::VectorXd& values);

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_POWER_TRANSFORM_H_
