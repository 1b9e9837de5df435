def f0(a=f1()+f1()+f1()+f1()+f1()+f1()+f1()+f1()):
    pass
def f1(a=f2()+f2()+f2()+f2()+f2()+f2()+f2()+f2()):
    pass
def f2(a=f3()+f3()+f3()+f3()+f3()+f3()+f3()+f3()):
    pass
def f3(a=f4()+f4()+f4()+f4()+f4()+f4()+f4()+f4()):
    pass
def f4(a=f5()+f5()+f5()+f5()+f5()+f5()+f5()+f5()):
    pass
def f5(a=f6()+f6()+f6()+f6()+f6()+f6()+f6()+f6()):
    pass
def f6(a=f7()+f7()+f7()+f7()+f7()+f7()+f7()+f7()):
    pass
def f7(a=f8()+f8()+f8()+f8()+f8()+f8()+f8()+f8()):
    pass
def f8(a=f9()+f9()+f9()+f9()+f9()+f9()+f9()+f9()):
    pass
def f9(a=f10()+f10()+f10()+f10()+f10()+f10()+f10()+f10()):
    pass
def f10(a=f11()+f11()+f11()+f11()+f11()+f11()+f11()+f11()):
    pass
def f11(a=f12()+f12()+f12()+f12()+f12()+f12()+f12()+f12()):
    pass
def f12():
    pass
f0()
