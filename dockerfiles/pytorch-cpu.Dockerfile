# PyTorch for CPU (Debian 12's python3-torch 1.13, numpy) FROM trainpkg's
# python base: the framework image a PyTorch trainer starts FROM, as Google's
# pytorch-cpu training container is on Vertex AI. Gloo is PyTorch's CPU
# collective backend, so DDP needs nothing more.
#   trainpkg build -f dockerfiles/pytorch-cpu.Dockerfile \
#       --build-arg BASE=127.0.0.1:5000/trainpkg/python:bookworm \
#       -t 127.0.0.1:5000/trainpkg/pytorch-cpu:bookworm dockerfiles
ARG BASE=trainpkg/python:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3-torch python3-numpy \
 && rm -rf /var/lib/apt/lists/* /var/log/apt/* /var/log/dpkg.log
