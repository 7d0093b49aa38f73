"""The trainer as a Python source distribution, the form AI Platform's
`--package-path` and Vertex's pythonPackageSpec install on an executor
image: `python3 setup.py sdist` writes dist/trainer-0.1.tar.gz. torch and
numpy come from the executor image (the pytorch-cpu base), so the package
requires nothing else; the digits file travels inside it when
trainer/data/digits.csv.gz is there (README)."""

from setuptools import find_packages, setup

setup(
    name="trainer",
    version="0.1",
    description="PyTorch DDP digits trainer (trainpkg sample)",
    packages=find_packages(),
    package_data={"trainer": ["data/*.csv.gz"]},
    include_package_data=True,
)
