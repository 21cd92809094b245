. ~/.bashrc
