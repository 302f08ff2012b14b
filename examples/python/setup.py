"""Makes the wheel a platform wheel: it carries libsvmgo.so and the svmgo
command, built for one machine, though its Python code runs on any Python 3.
The tag is py3-none-<platform>: the platform of the building Python, or
$SVMGO_WHEEL_PLAT (make wheel-arm64 sets linux_aarch64). Everything else is
in pyproject.toml."""

import os

from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    """Says the package has compiled parts, so that its files go to the
    wheel's root (platlib), not to a .data/purelib folder."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        plat = os.environ.get("SVMGO_WHEEL_PLAT")
        if plat:
            self.plat_name = plat
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
