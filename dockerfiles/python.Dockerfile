# Python 3 (Debian 12's python3.11) with pip and venv, FROM trainpkg's
# minimal Debian base: the role of the python layer of Google's prebuilt
# training containers. Every package comes from the Debian archive the base's
# apt sources name. dockerfiles/build-bases.sh builds it after the base:
#   trainpkg build -f dockerfiles/python.Dockerfile \
#       --build-arg BASE=127.0.0.1:5000/trainpkg/debian:bookworm \
#       -t 127.0.0.1:5000/trainpkg/python:bookworm dockerfiles
ARG BASE=trainpkg/debian:bookworm
FROM ${BASE}
# python-is-python3: the guides' ENTRYPOINT ["python", "-m", "trainer.task"]
# finds `python`. The apt lists and apt's and dpkg's logs are removed in the
# same step, so no layer keeps them (the base's apt configuration already
# deletes the downloaded packages).
# `RUN pip install ...` in an image is the point of this base: the image is
# the environment, so Debian's guard against pip changing the system Python
# (PEP 668's EXTERNALLY-MANAGED marker) is lifted, as container images do;
# removed in the step that installs it, so no layer holds it and a whiteout.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-pip python3-venv python-is-python3 ca-certificates \
 && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED \
 && rm -rf /var/lib/apt/lists/* /var/log/apt/* /var/log/dpkg.log
# Output reaches `trainpkg jobs logs` as it is printed.
ENV PYTHONUNBUFFERED=1
CMD ["python3"]
